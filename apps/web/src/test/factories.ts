import { DEFAULT_ACCESS, type UserProfile } from '@cumulo/contract';

/** A signed-in user as GET /api/users/_me answers it; `acl` overrides merge into every service on. */
export function buildProfile(
  overrides: Partial<Omit<UserProfile, 'acl'>> & { acl?: Partial<UserProfile['acl']> } = {},
): UserProfile {
  const { acl, ...rest } = overrides;
  return {
    id: 'user-1',
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada@example.com',
    company: 'Analytical Engines',
    pictureUrl: null,
    created_at: '2025-03-04T10:00:00.000Z',
    activation_date: '2025-03-05T10:00:00.000Z',
    active: true,
    role: { id: 1, title: 'Owner' },
    packages: [],
    has_billing_info: false,
    in_trial: true,
    package: { has_s3_native: false },
    referrer_id: null,
    slack_on_sidebar: false,
    slack_on_popup: false,
    mfa_enabled: false,
    userType: 4,
    organization: {
      id: 'org-1',
      name: 'Analytical Engines',
      is_cbs: false,
      confirmed_wasabi: false,
      confirmed_c2c: false,
      confirmed_ftx: false,
    },
    quota: {},
    operator: false,
    ...rest,
    acl: { ...DEFAULT_ACCESS, has_wasabi: false, ...acl },
  };
}
