import { describe, expect, it } from 'vitest';
import { creditsOf, donutSlices, sumByName } from './donut-slices.ts';

describe('donutSlices', () => {
  it('keeps the four costliest and gathers the rest as Other, leaving credits out of the drawing', () => {
    const slices = donutSlices([
      { name: 'a', cost: 1 },
      { name: 'b', cost: 5 },
      { name: 'c', cost: 4 },
      { name: 'credit', cost: -3 },
      { name: 'd', cost: 3 },
      { name: 'e', cost: 2 },
      { name: 'f', cost: 0.5 },
    ]);
    expect(slices).toEqual([
      { name: 'b', cost: 5 },
      { name: 'c', cost: 4 },
      { name: 'd', cost: 3 },
      { name: 'e', cost: 2 },
      { name: 'Other', cost: 1.5 },
    ]);
  });

  it('sums the credits the drawing leaves out, so the legend adds up to the total', () => {
    const items = [
      { name: 'storage', cost: 14.67 },
      { name: 'credit', cost: -18.63 },
      { name: 'refund', cost: -0.01 },
      { name: 'free', cost: 0 },
    ];
    expect(creditsOf(items)).toBeCloseTo(-18.64, 9);
    const drawn = donutSlices(items).reduce((sum, slice) => sum + slice.cost, 0);
    expect(drawn + creditsOf(items)).toBeCloseTo(-3.97, 9);
    expect(creditsOf([{ name: 'a', cost: 2 }])).toBe(0);
  });

  it('draws no Other slice when four or fewer items cost something', () => {
    expect(donutSlices([{ name: 'a', cost: 2 }])).toEqual([{ name: 'a', cost: 2 }]);
  });

  it('sums items of one name', () => {
    expect(
      sumByName([
        { name: 'x', cost: 1 },
        { name: 'y', cost: 2 },
        { name: 'x', cost: 3 },
      ]),
    ).toEqual([
      { name: 'x', cost: 4 },
      { name: 'y', cost: 2 },
    ]);
  });
});
