import { sql } from 'drizzle-orm';
import {
  AUDIT_SECRET_MASK,
  AUDIT_SYSTEM_AUTHOR,
  type AuditChange,
  type AuditEntity,
  type AuditType,
} from '@cumulo/contract';
import type { Database } from '../../db/client.ts';
import { audits } from '../../db/schema/index.ts';

/** Who made a change: a signed-in member or API key (a `Principal` fits), or Cumulo itself (`userId` null). */
export interface AuditActor {
  organizationId: string;
  userId: string | null;
  apiKeyId?: string;
  /** The transfer agent the member acted through. */
  deviceId?: string;
}

/** One change to record. `resource` is the thing's name as people know it; `resourceId` its id. */
export interface AuditEvent {
  entity: AuditEntity;
  type: AuditType;
  resource: string;
  resourceId?: string | null;
  changes?: AuditChange[];
}

/** The value of one property as the trail shows it: text, or null where there is none. */
type AuditValue = string | number | bigint | boolean | Date | null | undefined;

const show = (value: AuditValue): string | null =>
  value === null || value === undefined ? null : value instanceof Date ? value.toISOString() : String(value);

/** A secret's value as the trail shows it: that there is one, never what it is. */
const masked = (value: AuditValue): string | null => (show(value) === null ? null : AUDIT_SECRET_MASK);

interface DiffOptions {
  /** Properties whose values are secrets (keys, passwords, webhook URLs): recorded as changed, shown masked. */
  secrets?: readonly string[];
}

/**
 * The changed properties between two states of a thing (`before` null: Added, every property of `after`;
 * `after` null: Deleted, every property of `before`). Unchanged properties are left out; secrets are masked.
 */
export function changesOf(
  before: Record<string, AuditValue> | null,
  after: Record<string, AuditValue> | null,
  options: DiffOptions = {},
): AuditChange[] {
  const secrets = new Set(options.secrets);
  const properties = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  const changes: AuditChange[] = [];
  for (const property of properties) {
    const initial = show(before?.[property]);
    const value = show(after?.[property]);
    if (initial === value && before && after) continue;
    if (initial === null && value === null) continue;
    const hide = secrets.has(property) ? masked : show;
    changes.push({ property, value: hide(after?.[property]), initial: hide(before?.[property]) });
  }
  return changes;
}

/**
 * Writes audit entries on `db`, which must be the transaction of the change itself (ARCHITECTURE "Audit trail"):
 * the entry and the change land together or not at all. The author's name is read in the same statement, so an
 * entry keeps saying who acted after they leave.
 */
export async function recordAudit(
  db: Database,
  actor: AuditActor,
  events: AuditEvent | readonly AuditEvent[],
): Promise<void> {
  const list = Array.isArray(events) ? events : [events as AuditEvent];
  if (list.length === 0) return;
  const authorName = actor.userId
    ? sql<string>`coalesce((select coalesce(nullif(trim(concat_ws(' ', u.first_name, u.last_name)), ''), u.email)
        from users u where u.id = ${actor.userId}), ${AUDIT_SYSTEM_AUTHOR})`
    : sql<string>`${AUDIT_SYSTEM_AUTHOR}`;
  await db.insert(audits).values(
    list.map((event) => ({
      organizationId: actor.organizationId,
      authorUserId: actor.userId,
      authorName,
      apiKeyId: actor.apiKeyId ?? null,
      agentDeviceId: actor.deviceId ?? null,
      entity: event.entity,
      type: event.type,
      resource: event.resource,
      resourceId: event.resourceId ?? null,
      changes: event.changes ?? [],
    })),
  );
}
