import { useQuery } from '@tanstack/react-query';
import {
  chatWebhookView,
  messageAnswer,
  publicShareView,
  shareDownloadAnswer,
  shareListAnswer,
  type ChatWebhookBody,
  type ChatWebhookView,
  type PublicShareView,
  type ShareByChatBody,
  type ShareByEmailBody,
  type ShareDownloadAnswer,
  type ShareListAnswer,
} from '@cumulo/contract';
import { api } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';

/** POST /transfers/share_files_by_email; the dialog shows a refusal itself. */
export async function shareByEmail(body: ShareByEmailBody): Promise<string> {
  return messageAnswer.parse(await api.post('/transfers/share_files_by_email', body, { silent: true }))
    .message;
}

/** POST /transfers/share_files_by_chat (the spec's share_by_slack_files). */
export async function shareByChat(body: ShareByChatBody): Promise<string> {
  return messageAnswer.parse(await api.post('/transfers/share_files_by_chat', body, { silent: true }))
    .message;
}

export function useShares(page: number) {
  return useQuery({
    queryKey: queryKeys.sharesPage(page),
    queryFn: async (): Promise<ShareListAnswer> =>
      shareListAnswer.parse(await api.get('/shares', { query: { page } })),
  });
}

export async function revokeShare(id: string): Promise<string> {
  return messageAnswer.parse(await api.delete(`/shares/${encodeURIComponent(id)}`)).message;
}

export function useChatWebhook() {
  return useQuery({
    queryKey: queryKeys.chatWebhook,
    queryFn: async (): Promise<ChatWebhookView> =>
      chatWebhookView.parse(await api.get('/organizations/_me/chat_webhook')),
  });
}

export async function saveChatWebhook(body: ChatWebhookBody): Promise<ChatWebhookView> {
  return chatWebhookView.parse(await api.put('/organizations/_me/chat_webhook', body, { silent: true }));
}

export async function deleteChatWebhook(): Promise<string> {
  return messageAnswer.parse(await api.delete('/organizations/_me/chat_webhook')).message;
}

// The public link's calls: a 401/403/410 there is about the link, never about a session.
const linkCall = { silent: true, ownUnauthorized: true } as const;

export function usePublicShare(token: string) {
  return useQuery({
    queryKey: queryKeys.publicShare(token),
    queryFn: async (): Promise<PublicShareView> =>
      publicShareView.parse(await api.get(`/sharing/${encodeURIComponent(token)}`, linkCall)),
  });
}

export async function requestShareDownload(
  token: string,
  file: { path: string; index: number },
  password: string | null,
): Promise<ShareDownloadAnswer> {
  return shareDownloadAnswer.parse(
    await api.post(
      `/sharing/${encodeURIComponent(token)}/download`,
      { path: file.path, index: file.index, password },
      linkCall,
    ),
  );
}
