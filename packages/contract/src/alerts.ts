import { z } from 'zod';
import { text } from './text.ts';

/** Alert kinds (spec 000 §3). */
export const ALERT_TYPES = ['SIZE', 'COST'] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

/** Size units of the alert form; bytes = limit × 1024^(index+2) (spec 000 §5). */
export const ALERT_SIZE_UNITS = ['MB', 'GB', 'TB'] as const;
export type AlertSizeUnit = (typeof ALERT_SIZE_UNITS)[number];

export function alertSizeBytes(limit: number, unit: AlertSizeUnit): number {
  return Math.round(limit * 1024 ** (ALERT_SIZE_UNITS.indexOf(unit) + 2));
}

export const alertMessages = {
  deleted: 'Alert deleted successfully',
  fetchFailed: 'Server error ... Something went wrong while fetching your alerts, please try again.',
  sizeRequired: 'Enter a size limit.',
  costRequired: 'Enter a cost limit.',
  costPrecision: 'Enter a cost limit of at least $0.00001, with at most 5 decimals.',
  created: 'Alert saved successfully',
} as const;

/** POST /notifications/ — one call per limit (spec 000 §7). */
export const createAlertBody = z
  .object({
    cloud_account_id: z.uuid(),
    bucket_name: text({ max: 255 }).nullable().optional(),
    size_limit: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).nullable().optional(),
    // Stored with 5 decimals (spec 000 §9): a finer limit would be saved as another number than the one sent.
    cost_limit: z
      .number()
      .positive()
      .max(1e12)
      .refine((value) => value >= 0.00001 && Math.abs(Math.round(value * 1e5) - value * 1e5) < 1e-6, {
        message: alertMessages.costPrecision,
      })
      .nullable()
      .optional(),
  })
  .superRefine((body, ctx) => {
    const size = body.size_limit != null;
    const cost = body.cost_limit != null;
    if (size === cost)
      ctx.addIssue({
        code: 'custom',
        path: ['size_limit'],
        message: 'Give either a size limit or a cost limit.',
      });
  });
export type CreateAlertBody = z.infer<typeof createAlertBody>;

export const alertView = z.object({
  id: z.string(),
  type: z.enum(ALERT_TYPES),
  kind: z.enum(ALERT_TYPES),
  size_limit: z.number().nullable(),
  cost_limit: z.number().nullable(),
  last_notified: z.string().nullable(),
  bucket_name: z.string().nullable(),
  cloud_account_id: z.string(),
  service: z.string(),
  created_at: z.string(),
});
export type AlertView = z.infer<typeof alertView>;

/** Statuses of a bell notification (spec 000 §3). */
export const NOTIFICATION_STATUSES = ['normal', 'processing', 'error', 'warning', 'alerts'] as const;

export const notificationItem = z.object({
  id: z.string(),
  read: z.boolean(),
  title: z.string(),
  description: z.string(),
  status: z.enum(NOTIFICATION_STATUSES),
  last_notified: z.string(),
  avatar: z.string().nullable(),
  /** A path of the web app where the notification's action is (e.g. a sync waiting for approval). */
  link: z.string().nullable().optional(),
});
export type NotificationItem = z.infer<typeof notificationItem>;

/** GET notifications/unread_count: every unread notification of the member, not only the bell's latest 50. */
export const unreadCountAnswer = z.object({ count: z.number().int() });
export type UnreadCountAnswer = z.infer<typeof unreadCountAnswer>;

/** PUT notifications/read with repeated ids (?ids=a&ids=b). */
export const markReadQuery = z.object({
  ids: z.union([z.uuid(), z.array(z.uuid()).max(500)]).transform((v) => (Array.isArray(v) ? v : [v])),
});
