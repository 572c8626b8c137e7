import { useState } from 'react';
import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Checkbox,
  Form,
  Input,
  InputNumber,
  Modal,
  Segmented,
  Select,
  Space,
  Typography,
} from 'antd';
import {
  EMAIL_PATTERN,
  SHARE_EXPIRATION_DEFAULT_SECONDS,
  SHARE_EXPIRATION_MAX_SECONDS,
  SHARE_EXPIRATION_PRESETS,
  formatBytes,
  sharingMessages,
  type ShareItem,
} from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { useProfile } from '../profile/useProfile.ts';
import { shareByChat, shareByEmail, useChatWebhook } from './sharing-api.ts';

export interface ShareDialogFile {
  accountId: string;
  bucket: string;
  path: string;
  name: string;
  size: number;
}

export interface ShareDialogProps {
  open: boolean;
  files: ShareDialogFile[];
  onClose(): void;
}

type Via = 'E-mail' | 'Chat';
const CUSTOM = 'custom';
const DAY = 86_400;
const MAX_DAYS = SHARE_EXPIRATION_MAX_SECONDS / DAY;

/** The share dialog (spec 001 §2, §3 share options, §5): selectable files, then an e-mail link or a chat message. */
export function ShareDialog({ open, files, onClose }: ShareDialogProps) {
  return (
    <Modal open={open} title="Share files" footer={null} onCancel={onClose} destroyOnHidden width={560}>
      {open && <ShareForm files={files} onClose={onClose} />}
    </Modal>
  );
}

const fileKey = (file: Pick<ShareDialogFile, 'bucket' | 'path'>) => `${file.bucket}/${file.path}`;

function ShareForm({ files, onClose }: { files: ShareDialogFile[]; onClose(): void }) {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  // A file is its bucket and path: one path in two buckets is two files, ticked apart.
  const [selected, setSelected] = useState<string[]>(() => files.map(fileKey));
  const [via, setVia] = useState<Via>('E-mail');
  const [recipients, setRecipients] = useState<string[]>([]);
  const [password, setPassword] = useState('');
  const [preset, setPreset] = useState<number | typeof CUSTOM>(SHARE_EXPIRATION_DEFAULT_SECONDS);
  const [customDays, setCustomDays] = useState<number | null>(14);
  const [problem, setProblem] = useState<string | null>(null);
  const webhook = useChatWebhook();

  const share = useMutation({
    mutationFn: async () => {
      const items: ShareItem[] = files
        .filter((f) => selected.includes(fileKey(f)))
        .map((f) => ({
          name: f.path,
          size: f.size,
          acl: 'private',
          bucket_name: f.bucket,
          cloud_account_id: f.accountId,
        }));
      const expiration = preset === CUSTOM ? Math.round((customDays ?? 0) * DAY) : preset;
      const common = { files: items, password: password || null, expiration };
      return via === 'E-mail'
        ? shareByEmail({ ...common, recipients })
        : shareByChat({ ...common, channel: webhook.data?.channel_name ?? undefined });
    },
    onSuccess: async (text) => {
      void message.success(text);
      await queryClient.invalidateQueries({ queryKey: queryKeys.shares });
      onClose();
    },
    onError: (error) => setProblem(describeError(error)),
  });

  const submit = () => {
    setProblem(null);
    const check = validate();
    if (check) setProblem(check);
    else share.mutate();
  };

  const validate = (): string | null => {
    if (selected.length === 0) return sharingMessages.filesRequired;
    if (via === 'E-mail') {
      if (recipients.length === 0) return sharingMessages.recipientsRequired;
      if (recipients.some((r) => !EMAIL_PATTERN.test(r))) return sharingMessages.recipientInvalid;
    }
    if (preset === CUSTOM && (!customDays || customDays < 1 || customDays > MAX_DAYS))
      return sharingMessages.expirationRange;
    if (via === 'Chat' && !webhook.data?.configured) return sharingMessages.noChatChannel;
    return null;
  };

  return (
    <Form layout="vertical" onFinish={submit}>
      <Form.Item label={`Files (${selected.length} of ${files.length} selected)`}>
        <Checkbox.Group
          value={selected}
          onChange={(values) => setSelected(values)}
          style={{ display: 'flex', flexDirection: 'column', gap: 4 }}
          options={files.map((f) => ({
            value: fileKey(f),
            label: (
              <span>
                {f.name} <Typography.Text type="secondary">({formatBytes(f.size)})</Typography.Text>
              </span>
            ),
          }))}
        />
      </Form.Item>
      <Form.Item>
        <Segmented<Via> options={['E-mail', 'Chat']} value={via} onChange={setVia} aria-label="Share by" />
      </Form.Item>
      {via === 'E-mail' ? (
        <Form.Item label="Recipients" htmlFor="share-recipients" extra="Press Enter after each address.">
          <Select
            id="share-recipients"
            mode="tags"
            tokenSeparators={[',', ' ', ';']}
            placeholder="name@example.com"
            value={recipients}
            onChange={(values: string[]) =>
              setRecipients(values.map((v) => v.trim().toLowerCase()).filter(Boolean))
            }
          />
        </Form.Item>
      ) : (
        <ChatChannel loading={webhook.isPending} channel={webhook.data?.channel_name ?? null} />
      )}
      <Form.Item
        label="Password (optional)"
        htmlFor="share-password"
        extra="Recipients must enter it to download."
      >
        <Input.Password
          id="share-password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </Form.Item>
      <Form.Item label="Link expires after" htmlFor="share-expiration">
        <Space wrap>
          <Select
            id="share-expiration"
            style={{ width: 140 }}
            value={preset}
            onChange={setPreset}
            options={[
              ...SHARE_EXPIRATION_PRESETS.map((p) => ({ value: p.seconds, label: p.label })),
              { value: CUSTOM, label: 'Custom' },
            ]}
          />
          {preset === CUSTOM && (
            <InputNumber
              aria-label="Days"
              min={1}
              max={MAX_DAYS}
              value={customDays}
              onChange={setCustomDays}
              suffix="days"
            />
          )}
        </Space>
      </Form.Item>
      {problem && <Alert type="error" showIcon title={problem} style={{ marginBottom: 16 }} />}
      <Space style={{ width: '100%', justifyContent: 'flex-end' }}>
        <Button onClick={onClose}>Cancel</Button>
        <Button type="primary" htmlType="submit" loading={share.isPending}>
          Share
        </Button>
      </Space>
    </Form>
  );
}

function ChatChannel({ loading, channel }: { loading: boolean; channel: string | null }) {
  const profile = useProfile();
  if (loading) return null;
  if (channel) {
    return (
      <Form.Item label="Channel">
        <Typography.Text strong>#{channel}</Typography.Text>
      </Form.Item>
    );
  }
  const manager = profile.data && profile.data.role.title !== 'User';
  return (
    <Alert
      type="info"
      showIcon
      style={{ marginBottom: 16 }}
      title="No chat channel is set up yet."
      description={
        manager ? (
          <span>
            Add your team&apos;s incoming-webhook URL (Slack, Mattermost or Teams) under Chat channel on the{' '}
            <Link to="/sharing">Shared Files</Link> page.
          </span>
        ) : (
          'Ask an Owner or Admin of your organisation to add a chat channel on the Shared Files page.'
        )
      }
    />
  );
}
