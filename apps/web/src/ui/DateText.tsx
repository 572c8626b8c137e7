import dayjs from 'dayjs';

/** Spec 000 §9 date format. */
export const DATE_FORMAT = 'MM/DD/YYYY';

export function formatDate(value: string | Date): string {
  const date = dayjs(value);
  return date.isValid() ? date.format(DATE_FORMAT) : '';
}

export function DateText({ value }: { value: string | Date }) {
  const date = dayjs(value);
  if (!date.isValid()) return null;
  return <time dateTime={date.toISOString()}>{date.format(DATE_FORMAT)}</time>;
}
