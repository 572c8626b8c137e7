import {
  ACTIONS,
  accessMessages,
  messages,
  withinLimit,
  type AccessAttribute,
  type AccessService,
  type Action,
  type EffectiveAccess,
  type RoleTitle,
} from '@cumulo/contract';
import { forbidden } from '../errors.ts';

/** Who acts: a signed-in member (a `Principal` fits). */
export interface Actor {
  userId: string;
  role: RoleTitle;
  /**
   * The caller's effective service ACL, loaded once per request with the Principal; absent only for actors Cumulo
   * builds itself for role-only actions (billing's renewals).
   */
  access?: EffectiveAccess;
}

/** What the action touches, when members may act on what they created: its creator (null once they left). */
interface Owned {
  createdBy: string | null;
}

/** The code of a refusal because the caller's service ACL is off: the web tells it apart from a role refusal. */
export const SERVICE_OFF = 'SERVICE_OFF';

/**
 * Refuses (403, in plain words) a caller whose ACL of `service` is off (spec 002 §6). The services call it first
 * in every method of that service, reads included, so a member whose transfers are off sees none either.
 */
export function requireService(actor: Pick<Actor, 'access'>, service: AccessService): void {
  if (actor.access && !actor.access.services[service]) {
    throw forbidden(accessMessages.serviceOff(service), SERVICE_OFF);
  }
}

/** The code of a refusal because a size passes the caller's permission value. */
const SIZE_LIMIT = 'SIZE_LIMIT';

/** Refuses (403, naming the limit) `size` bytes beyond the caller's value of a size permission. */
export function requireWithin(actor: Pick<Actor, 'access'>, attribute: AccessAttribute, size: number): void {
  const limit = actor.access?.permissions[attribute];
  if (limit !== undefined && !withinLimit(size, limit)) {
    throw forbidden(accessMessages.tooLarge(attribute, size, limit), SIZE_LIMIT);
  }
}

/**
 * The one authorization check of the services (ARCHITECTURE "Authorization"): the action's service ACL must be on
 * for the caller; then the action's roles may act on anything of the organisation, other members only on what
 * they created, where the action allows it. Throws the 403 the HTTP layer maps. Call it after the organisation's
 * row was found (an unknown id answers 404 first).
 */
export function authorize(actor: Actor, action: Action, target?: Owned): void {
  const rule = ACTIONS[action];
  if (rule.service) requireService(actor, rule.service);
  if (rule.roles.includes(actor.role)) return;
  if (rule.creatorMay && target?.createdBy === actor.userId) return;
  throw forbidden(rule.refusal ?? messages.forbidden);
}

/** Whether the actor's role may take `action` on anything of the organisation (no creator exception, no throw). */
export function mayAct(actor: Pick<Actor, 'role'>, action: Action): boolean {
  return ACTIONS[action].roles.includes(actor.role);
}
