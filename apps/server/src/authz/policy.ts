import { ACTIONS, messages, type Action, type RoleTitle } from '@cumulo/contract';
import { forbidden } from '../http/errors.ts';

/** Who acts: a signed-in member (a `Principal` fits). */
export interface Actor {
  userId: string;
  role: RoleTitle;
}

/** What the action touches, when members may act on what they created: its creator (null once they left). */
export interface Owned {
  createdBy: string | null;
}

/**
 * The one authorization check of the services (ARCHITECTURE "Authorization"): the action's roles may act on
 * anything of the organisation; other members only on what they created, where the action allows it. Throws the
 * 403 the HTTP layer maps. Call it after the organisation's row was found (an unknown id answers 404 first).
 */
export function authorize(actor: Actor, action: Action, target?: Owned): void {
  const rule = ACTIONS[action];
  if (rule.roles.includes(actor.role)) return;
  if (rule.creatorMay && target?.createdBy === actor.userId) return;
  throw forbidden(rule.refusal ?? messages.forbidden);
}
