import type { RoleTitle } from './constants.ts';
import { billingMessages } from './billing.ts';
import { SYNC_DELETE_GUARD, syncMessages } from './sync.ts';
import { transferMessages } from './transfers.ts';

/**
 * Who may do what: one rule per action that changes or deletes data (ARCHITECTURE "Authorization"). The server's
 * services enforce it (apps/server/src/authz/policy.ts), the server README lists it, the web reads it to hide
 * what would be refused. Self-service calls (one's own profile, password, MFA, bell) and reads are not listed.
 */

const EVERY_MEMBER = ['Owner', 'Admin', 'User'] as const satisfies readonly RoleTitle[];
const APPROVERS = ['Owner', 'Admin'] as const satisfies readonly RoleTitle[];

/**
 * The per-service permission each action will also need once the team issue adds per-role and per-user service
 * ACLs (spec 002 §6); the names follow the product's areas.
 */
export type ServicePermission =
  | 'cloud_accounts'
  | 'storage'
  | 'uploads'
  | 'c2c'
  | 'sync'
  | 'sharing'
  | 'notifications'
  | 'billing'
  | 'team';

export interface ActionRule {
  /** Roles that may act on anything of the organisation. */
  roles: readonly RoleTitle[];
  /** Every other member may act on what they created themselves (their job, transfer, share, upload). */
  creatorMay: boolean;
  service: ServicePermission;
  /** What the action is, for the README table. */
  does: string;
  /** The refusal's words; `messages.forbidden` when absent. */
  refusal?: string;
}

export const authzMessages = {
  moveNeedsApprover:
    'Only an Owner or an Admin can move objects: a move deletes them from the source. Copy them instead.',
  guardNeedsApprover:
    "Only an Owner or an Admin can change a sync job's delete guardrail or quarantine, or loosen the default " +
    `guardrail: without an approval, a job you create deletes at most ${SYNC_DELETE_GUARD.count} objects and ` +
    `${SYNC_DELETE_GUARD.percent} % of its destination in a cycle.`,
  othersSyncJob: 'Only an Owner or an Admin can change a sync job another member created.',
  othersTransfer: 'Only an Owner or an Admin can change a transfer another member started.',
  othersShare: 'Only an Owner or an Admin can revoke a link another member shared.',
  othersUpload: 'Only an Owner or an Admin can stop an upload another member started.',
  bucketConfig: "Only an Owner or an Admin can change a bucket's configuration.",
  objectDelete: 'Only an Owner or an Admin can delete objects.',
} as const;

const rule = (
  roles: readonly RoleTitle[],
  service: ServicePermission,
  does: string,
  extra: Partial<Pick<ActionRule, 'creatorMay' | 'refusal'>> = {},
): ActionRule => ({ roles, service, does, creatorMay: false, ...extra });

export const ACTIONS = {
  'account.connect': rule(
    APPROVERS,
    'cloud_accounts',
    'connect a cloud account or create a Wasabi sub-account',
  ),
  'account.update': rule(APPROVERS, 'cloud_accounts', 'rename an account or change its billing bucket'),
  'account.remove': rule(APPROVERS, 'cloud_accounts', 'remove a cloud account'),
  'account.refresh': rule(EVERY_MEMBER, 'cloud_accounts', "count an account's buckets again (reads only)"),
  'bucket.create': rule(APPROVERS, 'storage', 'create a bucket'),
  'bucket.configure': rule(
    APPROVERS,
    'storage',
    "change a bucket's CORS, transfer acceleration or lifecycle",
    {
      refusal: authzMessages.bucketConfig,
    },
  ),
  'object.delete': rule(APPROVERS, 'storage', 'delete objects and folders', {
    refusal: authzMessages.objectDelete,
  }),
  'object.createFolder': rule(EVERY_MEMBER, 'storage', 'create a folder (an empty object)'),
  'upload.start': rule(EVERY_MEMBER, 'uploads', 'upload files directly to a bucket, report an upload'),
  'upload.abort': rule(APPROVERS, 'uploads', 'abort an upload session', {
    creatorMay: true,
    refusal: authzMessages.othersUpload,
  }),
  'transfer.copy': rule(EVERY_MEMBER, 'c2c', 'copy objects between buckets (transfer, c2c type 1)'),
  'transfer.move': rule(
    APPROVERS,
    'c2c',
    'move objects: copy, then delete the source (transfer, c2c type 0)',
    {
      refusal: authzMessages.moveNeedsApprover,
    },
  ),
  'transfer.manage': rule(APPROVERS, 'c2c', 'cancel a transfer or retry its failed files', {
    creatorMay: true,
    refusal: authzMessages.othersTransfer,
  }),
  'sync.create': rule(
    EVERY_MEMBER,
    'sync',
    'create a sync or replication job (with allowDelete too) under the default guardrail or a stricter one',
  ),
  'sync.guard': rule(
    APPROVERS,
    'sync',
    "set a job's guardrail looser than the default, or change a job's guardrail and quarantine",
    { refusal: authzMessages.guardNeedsApprover },
  ),
  'sync.manage': rule(APPROVERS, 'sync', 'activate, deactivate, run now or delete a job', {
    creatorMay: true,
    refusal: authzMessages.othersSyncJob,
  }),
  'sync.dryRun': rule(EVERY_MEMBER, 'sync', 'dry-run a job (lists both sides, changes nothing)'),
  'sync.decide': rule(APPROVERS, 'sync', "approve or reject a cycle's waiting deletes", {
    refusal: syncMessages.approvers,
  }),
  'share.create': rule(EVERY_MEMBER, 'sharing', 'share files by e-mail or chat link'),
  'share.revoke': rule(APPROVERS, 'sharing', 'revoke a share link', {
    creatorMay: true,
    refusal: authzMessages.othersShare,
  }),
  'chat.configure': rule(APPROVERS, 'sharing', "set or remove the organisation's chat webhook"),
  'alert.manage': rule(APPROVERS, 'notifications', 'create or delete a size or cost alert'),
  'organization.confirmCharges': rule(['Owner'], 'billing', 'confirm the c2c, ftX or Wasabi charge', {
    refusal: transferMessages.ownerConfirms,
  }),
  'billing.change': rule(
    ['Owner'],
    'billing',
    'add or remove a card, subscribe, change or cancel a plan or package',
    {
      refusal: billingMessages.ownerOnly,
    },
  ),
  'member.invite': rule(
    APPROVERS,
    'team',
    'invite a member (never as Owner); list, resend or cancel pending invitations',
  ),
  'member.activate': rule(
    APPROVERS,
    'team',
    'activate or deactivate a member (never oneself; an Admin only Users)',
  ),
  'member.role': rule(
    APPROVERS,
    'team',
    "change a member's role (never one's own nor an Owner's; only an Owner makes Owners)",
  ),
} satisfies Record<string, ActionRule>;

export type Action = keyof typeof ACTIONS;

/** Whether a role title (a profile's `role.title`) may take `action` on anything of the organisation. */
export function roleMay(role: string, action: Action): boolean {
  return (ACTIONS[action].roles as readonly string[]).includes(role);
}
