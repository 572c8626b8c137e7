import { changePasswordAnswer } from '@cumulo/contract';
import { api } from '../../api/client.ts';

export type ChangePasswordAnswer = ReturnType<typeof changePasswordAnswer.parse>;

export async function updateProfile(input: { first_name: string; last_name: string }): Promise<void> {
  await api.put('/users/_me', input, { silent: true });
}

export async function changePassword(input: {
  old_password: string;
  new_password: string;
}): Promise<ChangePasswordAnswer> {
  return changePasswordAnswer.parse(await api.put('/users/_me/change_password', input, { silent: true }));
}
