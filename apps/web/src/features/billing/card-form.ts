import {
  BILLING_COUNTRY,
  billingMessages,
  cardBrand,
  cvcValid,
  expiryInFuture,
  luhnValid,
  normaliseCardNumber,
  parseCardExpiry,
} from '@cumulo/contract';

/** What the card form holds as typed (spec 001 §5 / spec 002 §5: number, name, expiry, cvc, billing address). */
export interface CardFormValues {
  number: string;
  name: string;
  expiry: string;
  cvc: string;
  billing_address?: string;
  billing_city?: string;
  billing_state?: string;
  billing_zip?: string;
  billing_country?: string;
}

/** The credit card payload of spec 002 §7 (the contract's creditCardAttributes), as the web sends it. */
export interface CardPayload {
  full_number: string;
  cvv: string;
  expiration_month: number;
  expiration_year: number;
  first_name: string;
  last_name: string;
  billing_address: string;
  billing_city: string;
  billing_state: string;
  billing_zip: string;
  billing_country: string;
  payment_type: 'credit_card';
}

/** The card number's rule: spaces removed, then the Luhn check. */
export function cardNumberError(value: string): string | null {
  return luhnValid(normaliseCardNumber(value)) ? null : billingMessages.cardNumber;
}

export function cardNameError(value: string): string | null {
  return value.trim() ? null : billingMessages.cardName;
}

/** Spaces and slashes removed; MMYY of a month not yet over. */
export function cardExpiryError(value: string, now = new Date()): string | null {
  const expiry = parseCardExpiry(value);
  return expiry && expiryInFuture(expiry.month, expiry.year, now) ? null : billingMessages.cardExpiry;
}

/** 4 digits for American Express, 3 for the others (the brand read from the number typed so far). */
export function cardCvcError(cvc: string, number: string): string | null {
  return cvcValid(cvc.trim(), cardBrand(normaliseCardNumber(number))) ? null : billingMessages.cardCvc;
}

/** "Ada King Lovelace" → first "Ada King", last "Lovelace": the payload has both, the form one name field. */
function splitName(name: string): { first_name: string; last_name: string } {
  const words = name.trim().split(/\s+/);
  if (words.length < 2) return { first_name: words[0] ?? '', last_name: '' };
  return { first_name: words.slice(0, -1).join(' '), last_name: words[words.length - 1] ?? '' };
}

/** The payload of a valid form; null when a rule fails (the form shows which). */
export function cardPayload(values: CardFormValues): CardPayload | null {
  const expiry = parseCardExpiry(values.expiry);
  if (
    !expiry ||
    cardNumberError(values.number) ||
    cardNameError(values.name) ||
    cardExpiryError(values.expiry) ||
    cardCvcError(values.cvc, values.number)
  ) {
    return null;
  }
  return {
    full_number: normaliseCardNumber(values.number),
    cvv: values.cvc.trim(),
    expiration_month: expiry.month,
    expiration_year: expiry.year,
    ...splitName(values.name),
    billing_address: values.billing_address?.trim() ?? '',
    billing_city: values.billing_city?.trim() ?? '',
    billing_state: values.billing_state?.trim() ?? '',
    billing_zip: values.billing_zip?.trim() ?? '',
    // Spec 002 §9: new card subscriptions bill in the USA unless the address says otherwise.
    billing_country: values.billing_country?.trim() || BILLING_COUNTRY,
    payment_type: 'credit_card',
  };
}
