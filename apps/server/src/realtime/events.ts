import type pg from 'pg';

/** The one NOTIFY channel every process publishes on; the web role fans events out to browsers. */
export const EVENTS_CHANNEL = 'cumulo_events';

export interface OrgEvent {
  organizationId: string;
  /** Only this user's sockets receive it, when set. */
  userId?: string;
  type: string;
  data: unknown;
}

/** Internal control events (never forwarded to browsers). */
export interface SessionRevokedEvent {
  type: '$session-revoked';
  sessionIds: string[];
}

export type BusMessage = OrgEvent | SessionRevokedEvent;

/** Publishes an event to every web process through PostgreSQL NOTIFY (8000-byte payload limit). */
export async function publish(pool: pg.Pool, message: BusMessage): Promise<void> {
  await pool.query('select pg_notify($1, $2)', [EVENTS_CHANNEL, JSON.stringify(message)]);
}
