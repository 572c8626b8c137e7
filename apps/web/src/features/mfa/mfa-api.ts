import { generateMfaAnswer } from '@cumulo/contract';
import { api } from '../../api/client.ts';

export type MfaSecret = ReturnType<typeof generateMfaAnswer.parse>;

/** POST /api/user/generate_mfa_token; its 401 is handled by the page (spec 002 §8), not the shared modal. */
export async function generateMfaSecret(): Promise<MfaSecret> {
  return generateMfaAnswer.parse(
    await api.post('/user/generate_mfa_token', undefined, { silent: true, ownUnauthorized: true }),
  );
}

export async function setMfa(input: { enabled: boolean; userCode: string }): Promise<void> {
  await api.post('/user/set_mfa', input, { silent: true });
}
