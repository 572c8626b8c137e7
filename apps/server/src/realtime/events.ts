import type pg from 'pg';
import type { AccessService } from '@cumulo/contract';

/** The one NOTIFY channel every process publishes on; the web role fans events out to browsers. */
export const EVENTS_CHANNEL = 'cumulo_events';

interface OrgEvent {
  organizationId: string;
  /** Only this user's sockets receive it, when set. */
  userId?: string;
  /** Only members whose ACL of this service is on receive it (a transfer's progress, a sync cycle). */
  service?: AccessService;
  type: string;
  data: unknown;
}

/** Internal control events (never forwarded to browsers). */
interface SessionRevokedEvent {
  type: '$session-revoked';
  sessionIds: string[];
}

/** An organisation's service ACLs changed: the hub reads its members' ACLs again. */
interface AccessChangedEvent {
  type: '$access-changed';
  organizationId: string;
}

export type BusMessage = OrgEvent | SessionRevokedEvent | AccessChangedEvent;

/** Publishes an event to every web process through PostgreSQL NOTIFY (8000-byte payload limit). */
export async function publish(pool: pg.Pool, message: BusMessage): Promise<void> {
  await pool.query('select pg_notify($1, $2)', [EVENTS_CHANNEL, JSON.stringify(message)]);
}
