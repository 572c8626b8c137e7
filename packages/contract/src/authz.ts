import type { RoleTitle } from './constants.ts';
import type { AccessService } from './access.ts';
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

export interface ActionRule {
  /** Roles that may act on anything of the organisation. */
  roles: readonly RoleTitle[];
  /** Every other member may act on what they created themselves (their job, transfer, share, upload). */
  creatorMay: boolean;
  /** The service ACL the caller also needs (spec 002 §6); null where roles alone decide. */
  service: AccessService | null;
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
  othersEncoding: 'Only an Owner or an Admin can cancel or remove an encoding job another member started.',
  othersHybrikJob: 'Only an Owner or an Admin can cancel a Hybrik job another member started.',
  bucketConfig: "Only an Owner or an Admin can change a bucket's configuration.",
  objectDelete: 'Only an Owner or an Admin can delete objects.',
  /** An upload over an existing object replaces it, which deletes what it held: a User may not (issue: overwrite). */
  replaceNeedsApprover: (names: string[]) =>
    `${names.length === 1 ? `${names[0]} already exists` : `${names.length} files already exist (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''})`}: only an Owner or an Admin can replace files. Rename ${names.length === 1 ? 'it' : 'them'} or choose another folder.`,
  othersDevice: 'Only an Owner or an Admin can revoke a transfer agent another member paired.',
} as const;

const rule = (
  roles: readonly RoleTitle[],
  service: AccessService | null,
  does: string,
  extra: Partial<Pick<ActionRule, 'creatorMay' | 'refusal'>> = {},
): ActionRule => ({ roles, service, does, creatorMay: false, ...extra });

export const ACTIONS = {
  'account.connect': rule(APPROVERS, null, 'connect a cloud account or create a Wasabi sub-account'),
  'account.update': rule(APPROVERS, null, 'rename an account or change its billing bucket'),
  'account.remove': rule(APPROVERS, null, 'remove a cloud account'),
  'account.refresh': rule(EVERY_MEMBER, null, "count an account's buckets again (reads only)"),
  'analytics.refresh': rule(APPROVERS, 'analytics', "read an account's billing reports again now"),
  'bucket.create': rule(APPROVERS, null, 'create a bucket'),
  'bucket.configure': rule(APPROVERS, null, "change a bucket's CORS, transfer acceleration or lifecycle", {
    refusal: authzMessages.bucketConfig,
  }),
  'object.delete': rule(APPROVERS, null, 'delete objects and folders', {
    refusal: authzMessages.objectDelete,
  }),
  'object.createFolder': rule(EVERY_MEMBER, null, 'create a folder (an empty object)'),
  'metadata.manage': rule(EVERY_MEMBER, null, "add or delete a file's custom metadata (media info)"),
  'upload.start': rule(EVERY_MEMBER, 'uploads', 'upload files directly to a bucket, report an upload'),
  'upload.abort': rule(APPROVERS, 'uploads', 'abort an upload session', {
    creatorMay: true,
    refusal: authzMessages.othersUpload,
  }),
  'transfer.copy': rule(EVERY_MEMBER, 'transfers', 'copy objects between buckets (transfer, c2c type 1)'),
  'transfer.move': rule(
    APPROVERS,
    'transfers',
    'move objects: copy, then delete the source (transfer, c2c type 0)',
    {
      refusal: authzMessages.moveNeedsApprover,
    },
  ),
  'transfer.manage': rule(APPROVERS, 'transfers', 'cancel a transfer or retry its failed files', {
    creatorMay: true,
    refusal: authzMessages.othersTransfer,
  }),
  'encoding.start': rule(EVERY_MEMBER, 'encoding', 'encode files with presets (each preset one job)'),
  'encoding.manage': rule(APPROVERS, 'encoding', 'cancel an encoding job or remove an ended one', {
    creatorMay: true,
    refusal: authzMessages.othersEncoding,
  }),
  'hybrik.run': rule(EVERY_MEMBER, 'encoding', 'run a Hybrik profile on a file (one profile job)'),
  'hybrik.manage': rule(
    APPROVERS,
    'encoding',
    'upload or delete a Hybrik profile, set the profiles and output bucket',
  ),
  'hybrik.cancel': rule(APPROVERS, 'encoding', 'cancel a queued or active Hybrik job', {
    creatorMay: true,
    refusal: authzMessages.othersHybrikJob,
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
  'finance.budget': rule(EVERY_MEMBER, 'finance', 'set a budget or add a custom product (Finance)'),
  'finance.manage': rule(
    APPROVERS,
    'finance',
    'set or delete a budget alert, change the finance settings (who gets alerts and the activity digest)',
  ),
  'alert.manage': rule(APPROVERS, null, 'create or delete a size or cost alert'),
  'agent.pair': rule(EVERY_MEMBER, 'ftx', 'pair a transfer agent (ftX) with their account'),
  'agent.revoke': rule(APPROVERS, 'ftx', 'revoke a paired transfer agent', {
    creatorMay: true,
    refusal: authzMessages.othersDevice,
  }),
  'agent.transfer': rule(EVERY_MEMBER, 'ftx', 'upload or download through their transfer agent'),
  'organization.confirmCharges': rule(['Owner'], null, 'confirm the c2c, ftX or Wasabi charge', {
    refusal: transferMessages.ownerConfirms,
  }),
  'billing.change': rule(
    ['Owner'],
    null,
    'add or remove a card, subscribe, change or cancel a plan or package',
    {
      refusal: billingMessages.ownerOnly,
    },
  ),
  'member.invite': rule(
    APPROVERS,
    null,
    'invite a member (never as Owner); list, resend or cancel pending invitations',
  ),
  'member.activate': rule(
    APPROVERS,
    null,
    'activate or deactivate a member (never oneself; an Admin only Users)',
  ),
  'access.role': rule(
    APPROVERS,
    null,
    "set a role's service ACLs and permissions (not the Owner role's; the Admin role's only by an Owner)",
  ),
  'access.user': rule(
    APPROVERS,
    null,
    "set a member's service ACLs and permissions (not one's own nor an Owner's; an Admin only Users')",
  ),
  'member.role': rule(
    APPROVERS,
    null,
    "change a member's role (never one's own nor an Owner's; an Admin only Users'; only an Owner makes Owners)",
  ),
} satisfies Record<string, ActionRule>;

export type Action = keyof typeof ACTIONS;

/** Whether a role title (a profile's `role.title`) may take `action` on anything of the organisation. */
export function roleMay(role: string, action: Action): boolean {
  return (ACTIONS[action].roles as readonly string[]).includes(role);
}
