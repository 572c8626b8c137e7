import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ACTIONS, authzMessages, messages, roleMay, type RoleTitle } from '@cumulo/contract';
import { AppError } from '../errors.ts';
import { authorize, type Actor } from './policy.ts';

const actor = (role: RoleTitle, userId = 'u-1'): Actor => ({ userId, role });

function refusal(run: () => void): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('not refused');
}

/** The rows of the README's "Authorization" table, cells trimmed, keyed by action. */
function readmeRows(): Map<string, string[]> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.split('## Authorization')[1]?.split('\n## ')[0] ?? '';
  const rows = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    const action = /^`([a-zA-Z.]+)`$/.exec(cells[0] ?? '')?.[1];
    if (action) rows.set(action, cells);
  }
  return rows;
}

describe('authorize', () => {
  it('lets the listed roles act on anything and refuses the others with the action’s words', () => {
    expect(() => authorize(actor('Admin'), 'transfer.move')).not.toThrow();
    const refused = refusal(() => authorize(actor('User'), 'transfer.move'));
    expect(refused).toMatchObject({ statusCode: 403, message: authzMessages.moveNeedsApprover });
    expect(refusal(() => authorize(actor('User'), 'account.remove')).message).toBe(messages.forbidden);
    expect(refusal(() => authorize(actor('Admin'), 'organization.confirmCharges')).statusCode).toBe(403);
  });

  it('lets other roles act only on what they created, where the action allows it', () => {
    expect(() => authorize(actor('User', 'me'), 'sync.manage', { createdBy: 'me' })).not.toThrow();
    expect(refusal(() => authorize(actor('User', 'me'), 'sync.manage', { createdBy: 'other' })).message).toBe(
      authzMessages.othersSyncJob,
    );
    // A row whose creator left (null) is no one's: only the listed roles act on it.
    expect(refusal(() => authorize(actor('User', 'me'), 'sync.manage', { createdBy: null })).statusCode).toBe(
      403,
    );
    expect(() => authorize(actor('Admin', 'me'), 'sync.manage', { createdBy: 'other' })).not.toThrow();
    // Creating something does not make an approver-only action one's own.
    expect(
      refusal(() => authorize(actor('User', 'me'), 'object.delete', { createdBy: 'me' })).statusCode,
    ).toBe(403);
  });

  it('answers the web the same as the services', () => {
    expect(roleMay('User', 'transfer.copy')).toBe(true);
    expect(roleMay('User', 'transfer.move')).toBe(false);
    expect(roleMay('Admin', 'sync.guard')).toBe(true);
  });
});

describe('the server README lists every rule of ACTIONS as the code has it', () => {
  const rows = readmeRows();

  it('has one row per action and no other', () => {
    expect([...rows.keys()].sort()).toEqual(Object.keys(ACTIONS).sort());
  });

  it.each(Object.entries(ACTIONS))('%s: what, roles, other roles and service ACL', (action, rule) => {
    const others = rule.creatorMay ? 'their own only' : rule.roles.includes('User') ? '—' : 'refused';
    const [, does, roles, otherRoles, , service] = rows.get(action) ?? [];
    expect({ does, roles, otherRoles, service }).toEqual({
      does: rule.does,
      roles: rule.roles.join(', '),
      otherRoles: others,
      service: rule.service ? `\`${rule.service}\`` : '—',
    });
  });
});
