import { useState } from 'react';
import { useParams } from 'react-router';
import { useMutation } from '@tanstack/react-query';
import { Alert, Button, Input, Space, Typography } from 'antd';
import { DownloadOutlined } from '@ant-design/icons';
import { sharingMessages, type PublicShareView } from '@cumulo/contract';
import { ApiError, describeError } from '../../api/client.ts';
import { AuthCard } from '../../ui/AuthCard.tsx';
import { ByteSize } from '../../ui/ByteSize.tsx';
import { DateText } from '../../ui/DateText.tsx';
import { PageSpinner } from '../../ui/PageSpinner.tsx';
import { requestShareDownload, usePublicShare } from './sharing-api.ts';
import { startDownload } from './start-download.ts';

/** /sharing/{token}: the signed-out page of a share link — its files, its password, one signed URL per download. */
export function SharedLinkPage() {
  const { token = '' } = useParams();
  const share = usePublicShare(token);
  return (
    <AuthCard title="Shared Files">
      {share.isPending ? (
        <PageSpinner />
      ) : share.data ? (
        <SharedFiles token={token} share={share.data} />
      ) : (
        <Alert type="error" showIcon title={describeError(share.error)} />
      )}
    </AuthCard>
  );
}

function SharedFiles({ token, share }: { token: string; share: PublicShareView }) {
  const [password, setPassword] = useState('');
  const [passwordError, setPasswordError] = useState<string | null>(null);
  // A link revoked or expired while the page is open: its text replaces the list.
  const [closed, setClosed] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const download = useMutation({
    mutationFn: (file: { path: string; index: number }) =>
      requestShareDownload(token, file, share.password_required ? password : null),
    onMutate: () => {
      setPasswordError(null);
      setProblem(null);
    },
    onSuccess: (answer) => startDownload(answer.url),
    onError: (error) => {
      if (error instanceof ApiError && error.status === 403) setPasswordError(error.message);
      else if (error instanceof ApiError && error.status === 410 && error.code?.startsWith('SHARE_'))
        setClosed(error.message);
      else setProblem(describeError(error));
    },
  });

  if (closed) return <Alert type="error" showIcon title={closed} />;

  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <Typography.Paragraph style={{ margin: 0 }}>
        {share.shared_by ? `${share.shared_by} shared` : 'Shared'} {share.files.length} file
        {share.files.length === 1 ? '' : 's'} with you. The link works until{' '}
        <DateText value={share.expires_at} />.
      </Typography.Paragraph>
      {share.password_required && (
        <div>
          <label htmlFor="share-link-password">Password</label>
          <Input.Password
            id="share-link-password"
            autoComplete="off"
            value={password}
            status={passwordError ? 'error' : undefined}
            onChange={(e) => setPassword(e.target.value)}
            placeholder={sharingMessages.passwordRequired}
          />
          {passwordError && (
            <Typography.Text type="danger" role="alert">
              {passwordError}
            </Typography.Text>
          )}
        </div>
      )}
      <ul aria-label="Shared files" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
        {share.files.map((file) => (
          <li key={file.index} style={{ display: 'flex', alignItems: 'center', gap: 12, padding: '8px 0' }}>
            <span style={{ flex: 1, minWidth: 0, overflowWrap: 'anywhere' }}>
              {file.name}{' '}
              <Typography.Text type="secondary">
                (<ByteSize bytes={file.size} />)
              </Typography.Text>
            </span>
            <Button
              icon={<DownloadOutlined />}
              aria-label={`Download ${file.name}`}
              loading={download.isPending && download.variables?.index === file.index}
              onClick={() => download.mutate(file)}
            >
              Download
            </Button>
          </li>
        ))}
      </ul>
      {problem && <Alert type="error" showIcon title={problem} />}
    </Space>
  );
}
