import { describe, expect, it } from 'vitest';
import { assignableRoles, completeInviteRows, mayChangeRole, mayToggleActive } from './members.ts';

describe('invite rows (spec 002 §5)', () => {
  it('counts a row only when all four fields are filled, trimmed, with the e-mail lower-cased', () => {
    expect(
      completeInviteRows([
        { first_name: ' Ivy ', last_name: 'Tee', email: ' Ivy@Example.COM ', role_id: 3 },
        { first_name: 'Half', last_name: '', email: 'half@example.com', role_id: 3 },
        { first_name: 'No', last_name: 'Role', email: 'norole@example.com', role_id: null },
        { first_name: 'Al', last_name: 'Bo', email: 'al@example.com', role_id: 2 },
      ]),
    ).toEqual([
      { index: 0, first_name: 'Ivy', last_name: 'Tee', email: 'ivy@example.com', role_id: 3 },
      { index: 3, first_name: 'Al', last_name: 'Bo', email: 'al@example.com', role_id: 2 },
    ]);
  });

  it('never offers Owner in an invite; only an Owner may make Owners by a role change', () => {
    expect(assignableRoles('Owner', 'invite')).toEqual(['Admin', 'User']);
    expect(assignableRoles('Admin', 'change')).toEqual(['Admin', 'User']);
    expect(assignableRoles('Owner', 'change')).toEqual(['Owner', 'Admin', 'User']);
  });
});

describe('the Active toggle (spec 002 §6)', () => {
  const owner = { id: 'o', role: 'Owner' };
  const admin = { id: 'a', role: 'Admin' };
  it('is enabled for an Owner on anyone else, for an Admin on Users only, never on oneself', () => {
    expect(mayToggleActive(owner, { id: 'x', role: 'Admin' })).toBe(true);
    expect(mayToggleActive(owner, owner)).toBe(false);
    expect(mayToggleActive(admin, { id: 'u', role: 'User' })).toBe(true);
    expect(mayToggleActive(admin, { id: 'b', role: 'Admin' })).toBe(false);
    expect(mayToggleActive(admin, owner)).toBe(false);
    expect(mayToggleActive(admin, admin)).toBe(false);
    expect(mayToggleActive({ id: 'u', role: 'User' }, { id: 'v', role: 'User' })).toBe(false);
  });
});

describe('the role selector (spec 002 §6, with the Active toggle’s rule)', () => {
  const owner = { id: 'o', role: 'Owner' };
  const admin = { id: 'a', role: 'Admin' };
  it('an Owner changes anyone’s but their own and another Owner’s; an Admin only a User’s; a User nobody’s', () => {
    expect(mayChangeRole(owner, { id: 'x', role: 'Admin' })).toBe(true);
    expect(mayChangeRole(owner, { id: 'u', role: 'User' })).toBe(true);
    expect(mayChangeRole(owner, { id: 'o2', role: 'Owner' })).toBe(false);
    expect(mayChangeRole(owner, owner)).toBe(false);
    expect(mayChangeRole(admin, { id: 'u', role: 'User' })).toBe(true);
    expect(mayChangeRole(admin, { id: 'b', role: 'Admin' })).toBe(false);
    expect(mayChangeRole(admin, owner)).toBe(false);
    expect(mayChangeRole(admin, admin)).toBe(false);
    expect(mayChangeRole({ id: 'u', role: 'User' }, { id: 'v', role: 'User' })).toBe(false);
  });
});
