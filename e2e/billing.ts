import type { Locator, Page } from '@playwright/test';
import { expect } from './fixtures.ts';

/** The manual gateway's test card (never stored: the server keeps brand, last 4 digits and expiry). */
export const TEST_CARD = {
  number: '4242 4242 4242 4242',
  name: 'Grace Hopper',
  expiry: '12 / 34',
  cvc: '123',
};

/** Fills the shared card form (apps/web CardForm) inside `scope` and presses its submit button. */
export async function fillCardForm(scope: Locator, submit: string) {
  await scope.getByLabel('Card Number').fill(TEST_CARD.number);
  await scope.getByLabel('Name on Card').fill(TEST_CARD.name);
  await scope.getByLabel('Expiry').fill(TEST_CARD.expiry);
  await scope.getByLabel('CVC').fill(TEST_CARD.cvc);
  await scope.getByRole('button', { name: submit }).click();
}

/**
 * The Owner confirms the transfer charge (spec 001 §4 "Charge modal"). A new organisation has no card yet, so
 * Confirm opens the card form in the modal; the card is added, then the charge confirmed.
 */
export async function confirmChargeWithCard(page: Page, title = 'Cloud To Cloud Transfer') {
  const charge = page.getByRole('dialog', { name: title });
  await charge.getByRole('button', { name: 'Confirm' }).click();
  await fillCardForm(charge, 'Add Card and Confirm');
  await expect(charge).toBeHidden();
}
