import { generateMfaAnswer, recoveryCodesAnswer, recoveryCodesStatus, setMfaAnswer } from '@cumulo/contract';
import { api } from '../../api/client.ts';

export type MfaSecret = ReturnType<typeof generateMfaAnswer.parse>;

/** The TanStack Query key of the unused recovery codes count. */
export const recoveryCodesKey = ['user', 'mfa_recovery_codes'] as const;

/** POST /api/user/generate_mfa_token; its 401 is handled by the page (spec 002 §8), not the shared modal. */
export async function generateMfaSecret(): Promise<MfaSecret> {
  return generateMfaAnswer.parse(
    await api.post('/user/generate_mfa_token', undefined, { silent: true, ownUnauthorized: true }),
  );
}

/** Enabling answers the ten recovery codes, the only time the server ever sends them. */
export async function setMfa(input: { enabled: boolean; userCode: string }): Promise<string[]> {
  const answer = setMfaAnswer.parse(await api.post('/user/set_mfa', input, { silent: true }));
  return answer.recovery_codes ?? [];
}

export async function fetchRecoveryCodesLeft(): Promise<number> {
  return recoveryCodesStatus.parse(await api.get('/user/mfa_recovery_codes')).remaining;
}

/** New codes in place of all earlier ones, proven by the current password or a current authenticator code. */
export async function renewRecoveryCodes(
  proof: { password: string } | { userCode: string },
): Promise<string[]> {
  return recoveryCodesAnswer.parse(await api.post('/user/mfa_recovery_codes', proof, { silent: true }))
    .recovery_codes;
}
