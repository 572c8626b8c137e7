import { useCallback, useMemo, useRef, useState } from 'react';
import { Alert, App, Card, Col, Row, Space, Typography } from 'antd';
import { roleMay, uploadMessages, type AccessControl, type CloudAccountView } from '@cumulo/contract';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useCloudAccounts } from '../accounts/accounts-api.ts';
import type { BrowserLocation } from '../browser/BucketBrowser.tsx';
import { SharedBucketBrowser } from '../sharing/SharedBucketBrowser.tsx';
import { uploadQuotaKey } from '../billing/quota-refusal.ts';
import { useQuotaGate } from '../billing/useQuotaGate.tsx';
import { useProfile } from '../profile/useProfile.ts';
import { localFileKey, topFolder, type LocalFile } from './local-files.ts';
import { LocalUploadPane } from './LocalUploadPane.tsx';
import type { UploadFileView } from './upload-engine.ts';
import { applyBucketCors, bucketCors } from './upload-transport.ts';
import { UploadHeader } from './UploadHeader.tsx';
import { LiveUploadList } from './UploadList.tsx';
import { useUploadEngine } from './useUploadEngine.ts';

export type DirectUploadVariant = 'S3Direct' | 'wasabi';

const isWasabi = (account: CloudAccountView) => account.provider === 'wasabi';

/** Texts the spec leaves to us. */
export const directUploadTexts = {
  acceleratorNeedsBilling:
    'Accelerated upload needs a payment method. Add a credit card in Billing to turn the accelerator on.',
} as const;

/**
 * /S3Direct and /wasabi (spec 001 §2): local files on the left go straight to the bucket open on the right.
 * The wasabi variant lists only Wasabi accounts and has no accelerator.
 */
export function DirectUploadPage({ variant }: { variant: DirectUploadVariant }) {
  const title = variant === 'wasabi' ? 'Direct Wasabi Storage' : 'Direct Upload';
  useDocumentTitle(title);
  const { message, modal, notification } = App.useApp();
  const profile = useProfile().data;
  const accounts = useCloudAccounts().data;
  const [location, setLocation] = useState<BrowserLocation | null>(null);
  const [refreshToken, setRefreshToken] = useState(0);
  const [chosen, setChosen] = useState<LocalFile[]>([]);
  const [hiddenChosen, setHiddenChosen] = useState(0);
  /** A bucket whose CORS refuses this site and the member may not apply it: said before any file fails. */
  const [corsBlocked, setCorsBlocked] = useState<string | null>(null);
  /** Buckets ("account/bucket") whose CORS was found ready (or set) on this page. */
  const corsReady = useRef(new Set<string>());
  const [acl, setAcl] = useState<AccessControl>('private');
  const [accelerate, setAccelerate] = useState(false);
  const [applyingId, setApplyingId] = useState<string | null>(null);
  const bumpRefresh = useCallback(() => setRefreshToken((n) => n + 1), []);
  const { engine } = useUploadEngine(bumpRefresh);
  const quota = useQuotaGate();

  const account = accounts?.find((candidate) => candidate.id === location?.accountId);
  const acceleratorShown = variant === 'S3Direct' && account?.provider === 'aws';
  const totalBytes = useMemo(() => chosen.reduce((sum, local) => sum + local.file.size, 0), [chosen]);

  const toggleAccelerator = (on: boolean) => {
    if (on && !profile?.has_billing_info) {
      modal.info({ title: 'Accelerator', content: directUploadTexts.acceleratorNeedsBilling });
      return;
    }
    setAccelerate(on);
  };

  /**
   * Issue 21: the bucket's CORS is checked before its first upload. When it would refuse this site, a member who
   * may change it gets it applied (and told); anyone else is told why before any file fails. True: go ahead.
   */
  const corsAllowsUpload = async (cloudAccountId: string, bucketName: string): Promise<boolean> => {
    const key = `${cloudAccountId}/${bucketName}`;
    if (corsReady.current.has(key)) return true;
    let answer;
    try {
      answer = await bucketCors(cloudAccountId, bucketName);
    } catch {
      // Not known: the upload itself finds out, and the list offers Apply then.
      return true;
    }
    if (answer.cors_ready === false) {
      if (!answer.may_apply) {
        setCorsBlocked(bucketName);
        return false;
      }
      try {
        await applyBucketCors(cloudAccountId, bucketName);
        notification.info({ title: 'CORS', description: uploadMessages.corsApplied(bucketName) });
      } catch {
        notification.error({ title: uploadMessages.corsFailed });
        return false;
      }
    }
    setCorsBlocked(null);
    corsReady.current.add(key);
    return true;
  };

  const startUpload = async () => {
    if (!location?.accountId || !location.bucket) {
      void message.warning(uploadMessages.selectBucket);
      return;
    }
    const s3Acceleration = acceleratorShown && accelerate;
    if (s3Acceleration && profile) {
      const hasFolder = chosen.some((local) => topFolder(local.relativePath) !== null);
      if (hasFolder && !profile.has_billing_info) {
        void message.warning(uploadMessages.directoryOnFreePlan);
        return;
      }
    }
    // Spec 001 §5's check, on the quota the server counts this upload against (its uploadQuotaOf).
    const quotaKey = account ? uploadQuotaKey(account.provider, s3Acceleration) : null;
    if (profile && quotaKey && !quota.check(profile, quotaKey, totalBytes)) return;
    const files = chosen;
    const hidden = hiddenChosen;
    if (!(await corsAllowsUpload(location.accountId, location.bucket))) return;
    engine.enqueue(
      files,
      {
        cloudAccountId: location.accountId,
        bucketName: location.bucket,
        path: location.path,
        acl,
        s3Acceleration,
      },
      hidden,
    );
    setChosen([]);
    setHiddenChosen(0);
  };

  const applyCors = async (file: UploadFileView) => {
    setApplyingId(file.id);
    try {
      await applyBucketCors(file.cloudAccountId, file.bucketName);
      corsReady.current.add(`${file.cloudAccountId}/${file.bucketName}`);
      engine.retryFailed();
    } catch {
      notification.error({ title: uploadMessages.corsFailed });
    } finally {
      setApplyingId(null);
    }
  };

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        {title}
      </Typography.Title>
      <UploadHeader
        fileCount={chosen.length}
        totalBytes={totalBytes}
        acl={acl}
        onAclChange={setAcl}
        accelerator={acceleratorShown ? { on: accelerate, onChange: toggleAccelerator } : undefined}
      />
      {/* Side by side only from xl: below it the bucket pane would be too narrow for its Actions column. */}
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={9}>
          <LocalUploadPane
            title="Local File System"
            chosen={chosen}
            hiddenSkipped={hiddenChosen}
            onChoose={({ files, hiddenSkipped }) => {
              // The same file picked again (same path, size and date) is listed once.
              setChosen((current) => {
                const known = new Set(current.map(localFileKey));
                return [...current, ...files.filter((file) => !known.has(localFileKey(file)))];
              });
              setHiddenChosen((current) => current + hiddenSkipped);
            }}
            onClear={() => {
              setChosen([]);
              setHiddenChosen(0);
            }}
            onUpload={() => void startUpload()}
          />
          {corsBlocked && (
            <Alert
              type="warning"
              showIcon
              closable
              onClose={() => setCorsBlocked(null)}
              style={{ marginTop: 16 }}
              title={uploadMessages.corsNeeded}
              description={`${corsBlocked}: ${uploadMessages.corsAskAdmin}`}
            />
          )}
        </Col>
        <Col xs={24} xl={15}>
          {/* A card like the local pane beside it, so the two panes read as a pair. */}
          <Card
            title={variant === 'wasabi' ? 'Wasabi Files System' : 'Cloud File System'}
            style={{ height: '100%' }}
          >
            <SharedBucketBrowser
              location={location}
              onLocationChange={setLocation}
              refreshToken={refreshToken}
              accountFilter={variant === 'wasabi' ? isWasabi : undefined}
            />
          </Card>
        </Col>
      </Row>
      <LiveUploadList
        engine={engine}
        onCancel={(id) => engine.cancel(id)}
        onCancelDirectory={(id) => engine.cancelDirectory(id)}
        onApplyCors={
          roleMay(profile?.role.title ?? '', 'bucket.configure') ? (file) => void applyCors(file) : undefined
        }
        onDismiss={(id) => engine.dismiss(id)}
        onRetryFailed={() => engine.retryFailed()}
        applyingId={applyingId}
      />
      {quota.dialog}
    </Space>
  );
}
