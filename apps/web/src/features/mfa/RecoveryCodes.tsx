import { Alert, App, Button, Space, Typography } from 'antd';
import { CopyOutlined, DownloadOutlined } from '@ant-design/icons';
import { copyText } from '../browser/file-links.ts';
import { saveTextFile } from '../transfers/save-text-file.ts';

const FILE_NAME = 'cumulo-recovery-codes.txt';

/** The text copied and downloaded: the codes one a line, with how to use them. */
function codesText(codes: readonly string[]): string {
  return [
    'Cumulo multi-factor authentication recovery codes',
    'Each code works once. Enter one in place of the authenticator code when signing in.',
    '',
    ...codes,
    '',
  ].join('\n');
}

/**
 * The recovery codes, shown once right after they were made: the server keeps only their hashes, so once the user
 * confirms they are saved the page forgets them too.
 */
export function RecoveryCodes({ codes, onSaved }: { codes: readonly string[]; onSaved: () => void }) {
  const { message } = App.useApp();
  return (
    <section aria-label="Recovery codes">
      <Typography.Title level={4}>Your recovery codes</Typography.Title>
      <Alert
        type="warning"
        showIcon
        style={{ marginBottom: 16 }}
        title="Store these codes safely, for example in a password manager. Each code works once."
        description="If you lose your authenticator app, sign in with one of them. They are shown only now."
      />
      <ol aria-label="Recovery code list" style={{ columns: 2, fontFamily: 'monospace', fontSize: 16 }}>
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ol>
      <Space wrap>
        <Button
          icon={<CopyOutlined />}
          onClick={() =>
            void copyText(codesText(codes)).then(
              () => message.success('Recovery codes copied.'),
              () => message.error('The browser refused to copy. Download the codes instead.'),
            )
          }
        >
          Copy codes
        </Button>
        <Button
          icon={<DownloadOutlined />}
          onClick={() => saveTextFile(FILE_NAME, codesText(codes), 'text/plain;charset=utf-8')}
        >
          Download .txt
        </Button>
        <Button type="primary" onClick={onSaved}>
          I have saved these codes
        </Button>
      </Space>
    </section>
  );
}
