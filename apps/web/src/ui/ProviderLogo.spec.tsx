import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import logos from '@iconify-json/logos/icons.json';
import simpleIcons from '@iconify-json/simple-icons/icons.json';
import { PROVIDER_ICON_HEIGHT_PX, PROVIDER_NAMES } from '@cumulo/contract';
import { PROVIDER_TITLES, ProviderLogo } from './ProviderLogo.tsx';
import { PROVIDER_MARKS } from './provider-marks.ts';

/** The icon sets provider-marks.ts was written from (devDependencies; never part of the app bundle). */
const SETS: Record<string, { icons: Record<string, { body: string }> }> = {
  logos,
  'simple-icons': simpleIcons,
};

describe('provider logos', () => {
  it('draws each provider as a named mark 38 px high (spec 002 §9), never as letters', () => {
    for (const provider of PROVIDER_NAMES) {
      const { unmount } = render(<ProviderLogo provider={provider} />);
      const mark = screen.getByRole('img', { name: PROVIDER_TITLES[provider] });
      const height = mark.getAttribute('height') ?? mark.style.height;
      expect(parseFloat(height), provider).toBe(PROVIDER_ICON_HEIGHT_PX);
      // The mark is a drawing; its name is for assistive technology, not painted as text.
      expect(mark.querySelector('text'), provider).toBeNull();
      expect(mark.textContent?.replace(PROVIDER_TITLES[provider], '').trim(), provider).toBe('');
      unmount();
    }
  });

  it('shows the real marks of Amazon S3, Azure, Google Cloud, Backblaze and Wasabi, taken unchanged from their package', () => {
    expect(Object.keys(PROVIDER_MARKS).sort()).toEqual(['aws', 'azure', 'backblaze', 'google', 'wasabi']);
    for (const [provider, mark] of Object.entries(PROVIDER_MARKS)) {
      const [set = '', name = ''] = mark.source.replace('@iconify-json/', '').split(':');
      const original = SETS[set]?.icons[name]?.body ?? '';
      // Simple Icons paint in currentColor; the generator puts in the brand's colour and changes nothing else.
      const colour = /#[0-9A-F]{6}/.exec(mark.body)?.[0] ?? '';
      const expected = original.includes('currentColor')
        ? original.replaceAll('currentColor', colour)
        : original;
      expect(original, `${set} ${name}`).not.toBe('');
      expect(mark.body, provider).toBe(expected);
    }
  });

  it('keeps two logos on one page from sharing gradient ids', () => {
    render(
      <>
        <ProviderLogo provider="aws" />
        <ProviderLogo provider="aws" />
      </>,
    );
    const ids = [...document.querySelectorAll('svg [id]')].map((element) => element.id);
    expect(ids.length).toBeGreaterThan(1);
    expect(new Set(ids).size).toBe(ids.length);
    for (const svg of document.querySelectorAll('svg')) {
      for (const reference of svg.innerHTML.matchAll(/url\(#([^)]+)\)/g)) {
        expect(svg.querySelector(`[id="${reference[1]}"]`)).not.toBeNull();
      }
    }
  });

  it('takes a smaller height where the mark sits in a line of text', () => {
    render(<ProviderLogo provider="wasabi" height={20} />);
    expect(screen.getByRole('img', { name: 'Wasabi' })).toHaveAttribute('height', '20');
  });
});
