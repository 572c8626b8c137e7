import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { App, Card, Col, Row, Select, Space, Statistic, Tabs, Typography } from 'antd';
import { useQueryClient } from '@tanstack/react-query';
import {
  ACCESS_CONTROL_OPTIONS,
  agentMessages,
  formatBytes,
  transferMessages,
  uploadMessages,
  type AgentLocalFile,
  type AgentTransfer,
} from '@cumulo/contract';
import { queryKeys } from '../../api/query-keys.ts';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useResetBucket } from '../browser/browser-api.ts';
import { ChargeConfirmModal } from '../migration/ChargeConfirmModal.tsx';
import type { PanelFile, PanelLocation } from '../migration/transfer-screen-state.ts';
import { useProfile } from '../profile/useProfile.ts';
import { AgentError, agentClient } from './agent-client.ts';
import { agentKeys } from './agent-api.ts';
import { costPerMbText, costText, ftxActivated, ftxChargeConfirmed } from './agent-format.ts';
import { AgentBanner } from './AgentBanner.tsx';
import { AgentHistoryTab } from './AgentHistoryTab.tsx';
import { AgentTransfersPanel } from './AgentTransfersPanel.tsx';
import { CloudFilesPanel } from './CloudFilesPanel.tsx';
import { LOCAL_ROOT, LocalFilesPanel } from './LocalFilesPanel.tsx';
import { useAgent, type AgentState } from './use-agent.ts';

export const AGENT_PAGE_TITLE = 'Cumulo Transfer';

/** Texts of this screen the spec leaves to us. */
export const agentTexts = {
  openLocalFolder: 'Open a folder in the Local File System panel to download into it.',
} as const;

/** /ftx (spec 001 §2 "Transfer agent screen"): the agent's transfers and their history. */
export function AgentTransferPage() {
  useDocumentTitle(AGENT_PAGE_TITLE);
  return (
    <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        {AGENT_PAGE_TITLE}
      </Typography.Title>
      <Tabs
        destroyOnHidden
        items={[
          { key: 'transfer', label: AGENT_PAGE_TITLE, children: <TransferTab /> },
          { key: 'history', label: 'Transfer History', children: <AgentHistoryTab /> },
        ]}
      />
    </Space>
  );
}

/** Grow from this width, wrapping below it. */
const STATISTIC_WIDTH = '1 0 140px';

function Indicators({
  title,
  bytes,
  folders = 0,
  extra,
}: {
  title: string;
  bytes: number;
  /** Checked folders, whose size is known only once the transfer lists them: said, not counted as 0. */
  folders?: number;
  extra?: ReactNode;
}) {
  const plusFolders = folders > 0 ? ` + ${folders} folder${folders === 1 ? '' : 's'}` : '';
  return (
    <Card size="small" title={title} role="group" aria-label={title}>
      {/* Each figure keeps the width its value needs and they wrap in a narrow card ("$0.0000488" ran into the
          next figure at 1280 px when four shared the card). */}
      <Row gutter={[16, 8]}>
        <Col flex={STATISTIC_WIDTH}>
          <Statistic title="Size" value={`${formatBytes(bytes)}${plusFolders}`} />
        </Col>
        <Col flex={STATISTIC_WIDTH}>
          <Statistic title="Cost per MB" value={costPerMbText()} />
        </Col>
        <Col flex={STATISTIC_WIDTH}>
          <Statistic title="Total cost" value={`${costText(bytes)}${plusFolders}`} />
        </Col>
        {extra ? <Col flex={STATISTIC_WIDTH}>{extra}</Col> : null}
      </Row>
    </Card>
  );
}

/**
 * Ended transfers refresh what they changed: the local or the cloud listing, and the history. A transfer first seen
 * already ended counts when it ended after the page opened (a few small files are sent between two status polls);
 * one that ended before changed nothing the page has shown. The agent runs on this machine: one clock.
 */
function useRefreshOnEnd(agent: AgentState, cloud: PanelLocation) {
  const queryClient = useQueryClient();
  const resetBucket = useResetBucket();
  const seen = useRef(new Map<string, AgentTransfer['status']>());
  const [openedAt] = useState(() => Date.now());
  const cloudRef = useRef(cloud);
  cloudRef.current = cloud;

  useEffect(() => {
    let ended = false;
    for (const transfer of agent.transfers) {
      const before = seen.current.get(transfer.transferID);
      seen.current.set(transfer.transferID, transfer.status);
      const nowEnded = transfer.status !== 'queued' && transfer.status !== 'running';
      if (!nowEnded || before === transfer.status) continue;
      const endedHere = transfer.endedAt !== null && Date.parse(transfer.endedAt) >= openedAt;
      if (before === undefined && !endedHere) continue;
      ended = true;
      if (transfer.transferDirection === 'download') {
        void queryClient.invalidateQueries({ queryKey: [...agentKeys.all, 'files'] });
      } else {
        const { accountId, bucket } = cloudRef.current;
        if (accountId && bucket === transfer.bucket) void resetBucket(accountId, bucket);
      }
    }
    if (ended) {
      void queryClient.invalidateQueries({ queryKey: [...agentKeys.all, 'history'] });
      void queryClient.invalidateQueries({ queryKey: [...agentKeys.all, 'summary'] });
    }
  }, [agent.transfers, queryClient, resetBucket, openedAt]);
}

function TransferTab() {
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const profile = useProfile().data;
  const agent = useAgent();
  const [localPath, setLocalPath] = useState(LOCAL_ROOT);
  const [localChecked, setLocalChecked] = useState<AgentLocalFile[]>([]);
  const [cloud, setCloud] = useState<PanelLocation>({ accountId: null, bucket: null, path: '' });
  const [cloudChecked, setCloudChecked] = useState<PanelFile[]>([]);
  const [chargeOpen, setChargeOpen] = useState(false);
  useRefreshOnEnd(agent, cloud);

  const localBytes = useMemo(
    () => localChecked.reduce((sum, file) => sum + Math.max(0, file.size), 0),
    [localChecked],
  );
  const cloudBytes = useMemo(
    () => cloudChecked.reduce((sum, file) => sum + Math.max(0, file.size), 0),
    [cloudChecked],
  );
  const localFolders = localChecked.filter((file) => file.size < 0).length;
  const cloudFolders = cloudChecked.filter((file) => file.key.endsWith('/')).length;

  /** The checks every agent transfer passes first (spec 001 §5, §4 charge confirmation): the key, or null. */
  const readyKey = (launchText: string): string | null => {
    if (!ftxActivated(profile)) {
      void message.error(agentMessages.notActivated);
      void queryClient.invalidateQueries({ queryKey: queryKeys.profile });
      return null;
    }
    if (!agent.running || agent.serverError || !agent.key) {
      void message.warning(launchText);
      return null;
    }
    if (!ftxChargeConfirmed(profile)) {
      setChargeOpen(true);
      return null;
    }
    return agent.key;
  };

  /** A transfer the agent did not start: stopped meanwhile (spec §8's launch text), the charge, or its reason. */
  const notStarted = (error: unknown, launchText: string) => {
    agent.reportFailure(error);
    if (error instanceof AgentError && error.status === 0) {
      void message.warning(launchText);
      return;
    }
    if (error instanceof AgentError && error.message === transferMessages.chargeNotConfirmed) {
      void queryClient.invalidateQueries({ queryKey: queryKeys.profile });
      setChargeOpen(true);
      return;
    }
    void message.error(error instanceof AgentError ? error.message : agentMessages.serverError);
  };

  const upload = async (files: AgentLocalFile[]) => {
    if (files.length === 0) {
      void message.warning(transferMessages.selectFiles);
      return;
    }
    // The bucket first: choosing one is the user's next step whatever else stands in the way.
    if (!cloud.accountId || !cloud.bucket) {
      void message.warning(uploadMessages.selectBucket);
      return;
    }
    const key = readyKey(agentMessages.launchBeforeUpload);
    if (!key) return;
    try {
      await agentClient.upload(
        key,
        files.map((file) => file.path),
        { cloud_account_id: cloud.accountId, bucket_name: cloud.bucket, path: cloud.path },
      );
      void message.success(`Upload of ${files.length} item${files.length === 1 ? '' : 's'} started`);
      setLocalChecked([]);
    } catch (error) {
      notStarted(error, agentMessages.launchBeforeUpload);
    }
  };

  const download = async () => {
    if (cloudChecked.length === 0) {
      void message.warning(transferMessages.selectFiles);
      return;
    }
    const key = readyKey(agentMessages.launchBeforeDownload);
    if (!key) return;
    if (!cloud.accountId || !cloud.bucket) return;
    if (localPath === LOCAL_ROOT) {
      void message.warning(agentTexts.openLocalFolder);
      return;
    }
    try {
      await agentClient.download(key, {
        remotePaths: cloudChecked.map((file) => file.key),
        cloud_account_id: cloud.accountId,
        bucket_name: cloud.bucket,
        localPath,
      });
      void message.success(
        `Download of ${cloudChecked.length} item${cloudChecked.length === 1 ? '' : 's'} started`,
      );
      setCloudChecked([]);
    } catch (error) {
      notStarted(error, agentMessages.launchBeforeDownload);
    }
  };

  return (
    <Space orientation="vertical" size="large" style={{ width: '100%' }}>
      <AgentBanner agent={agent} />
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={12}>
          <Indicators
            title="Upload"
            bytes={localBytes}
            folders={localFolders}
            extra={
              <Space orientation="vertical" size={4} style={{ width: '100%' }}>
                <Typography.Text type="secondary">Access control</Typography.Text>
                {/* Spec 001 §2: shown, disabled (the agent uploads with the bucket's default access). */}
                <Select
                  aria-label="Access control"
                  disabled
                  value={ACCESS_CONTROL_OPTIONS[0]}
                  options={ACCESS_CONTROL_OPTIONS.map((value) => ({ value, label: value }))}
                  style={{ width: '100%' }}
                />
              </Space>
            }
          />
        </Col>
        <Col xs={24} xl={12}>
          <Indicators title="Download" bytes={cloudBytes} folders={cloudFolders} />
        </Col>
      </Row>
      <Row gutter={[16, 16]}>
        <Col xs={24} xl={12}>
          <LocalFilesPanel
            agent={agent}
            path={localPath}
            checked={localChecked}
            onOpenFolder={(path) => {
              setLocalPath(path);
              setLocalChecked([]);
            }}
            onCheck={setLocalChecked}
            onUpload={(files) => void upload(files)}
          />
        </Col>
        <Col xs={24} xl={12}>
          <CloudFilesPanel
            location={cloud}
            checked={cloudChecked}
            onLocationChange={(next) => {
              setCloud(next);
              setCloudChecked([]);
            }}
            onCheck={setCloudChecked}
            onDownload={() => void download()}
          />
        </Col>
      </Row>
      <AgentTransfersPanel agent={agent} />
      <ChargeConfirmModal open={chargeOpen} kind="ftx" onClose={() => setChargeOpen(false)} />
    </Space>
  );
}
