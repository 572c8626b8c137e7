import {
  App,
  Button,
  Card,
  Empty,
  Popconfirm,
  Progress,
  Space,
  Table,
  Tag,
  Typography,
  type TableColumnsType,
} from 'antd';
import { agentMessages, type AgentTransfer, type AgentTransferStatus } from '@cumulo/contract';
import { AgentError, agentClient } from './agent-client.ts';
import { agentEtaText, agentFilesText, agentSpeedText } from './agent-format.ts';
import type { AgentState } from './use-agent.ts';

const STATUS_TAGS: Partial<Record<AgentTransferStatus, { color: string; text: string }>> = {
  // Waiting for the agent's transfers before it (no speed or files yet): said, not shown as a stalled 0 B/s.
  queued: { color: 'default', text: 'Queued' },
  completed: { color: 'success', text: 'Completed' },
  failed: { color: 'error', text: 'Failed' },
  cancelled: { color: 'default', text: 'Cancelled' },
};

const DIRECTION_TEXT = { upload: 'Upload', download: 'Download' } as const;

const active = (transfer: AgentTransfer) => transfer.status === 'queued' || transfer.status === 'running';

/**
 * What a row is called: the file being sent, else the items chosen ('projects', 'a.jpg, b.jpg +3 more'), else its
 * bucket (an agent that does not say what was chosen).
 */
function transferName(transfer: AgentTransfer): string {
  if (transfer.currentFilename) return transfer.currentFilename;
  const [first, second, ...rest] = transfer.items;
  if (first === undefined) return transfer.bucket;
  const named = second === undefined ? first : `${first}, ${second}`;
  return rest.length > 0 ? `${named} +${rest.length} more` : named;
}

/**
 * Spec 001 §2 "Transfers panel": the agent's transfers, polled every second by useAgent, with File, Direction,
 * Speed, ETA, Progress and Cancel; an ended transfer shows its status, and its failed files under the row.
 */
export function AgentTransfersPanel({ agent }: { agent: AgentState }) {
  const { message } = App.useApp();

  /**
   * Spec 001 §8: a failed transfer's failed files start again as a new transfer, once (spec 001 §4, as a batch): the
   * row then says Retried, and what the retry fails is retried from the retry's own row.
   */
  const retryFailed = async (transfer: AgentTransfer) => {
    if (!agent.key) return;
    try {
      await agentClient.retry(agent.key, transfer.transferID);
      void message.success(agentMessages.retryStarted);
    } catch (error) {
      agent.reportFailure(error);
      void message.error(error instanceof AgentError ? error.message : agentMessages.notRunning);
    }
  };

  const cancel = async (transfer: AgentTransfer) => {
    if (!agent.key) return;
    try {
      await agentClient.cancel(agent.key, transfer.transferID);
      void message.success(agentMessages.cancelled);
    } catch (error) {
      agent.reportFailure(error);
      void message.error(agentMessages.cancelFailed);
    }
  };

  const columns: TableColumnsType<AgentTransfer> = [
    {
      title: 'File',
      key: 'file',
      render: (_, transfer) => {
        const tag = STATUS_TAGS[transfer.status];
        return (
          <Space size="small" wrap>
            <span>{transferName(transfer)}</span>
            {transferName(transfer) === transfer.bucket ? null : (
              <Typography.Text type="secondary">{transfer.bucket}</Typography.Text>
            )}
            {tag ? <Tag color={tag.color}>{tag.text}</Tag> : null}
            {transfer.resumed ? <Tag color="processing">Resumed</Tag> : null}
            {transfer.retried ? <Tag>Retried</Tag> : null}
          </Space>
        );
      },
    },
    {
      title: 'Direction',
      key: 'direction',
      width: 110,
      render: (_, transfer) => DIRECTION_TEXT[transfer.transferDirection],
    },
    {
      title: 'Speed',
      key: 'speed',
      width: 120,
      render: (_, transfer) =>
        transfer.status === 'running' ? agentSpeedText(transfer.rateAverageInKBperSecond) : '—',
    },
    {
      title: 'ETA',
      key: 'eta',
      width: 100,
      render: (_, transfer) => (transfer.status === 'running' ? agentEtaText(transfer.timeRemaining) : '—'),
    },
    {
      title: 'Progress',
      key: 'progress',
      width: 200,
      render: (_, transfer) => (
        <>
          <Progress
            aria-label={`Progress of ${transferName(transfer)}`}
            percent={Math.floor(transfer.percent)}
            size="small"
            status={
              transfer.status === 'failed'
                ? 'exception'
                : transfer.status === 'completed'
                  ? 'success'
                  : 'active'
            }
          />
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {agentFilesText(transfer)}
          </Typography.Text>
        </>
      ),
    },
    {
      title: 'Cancel',
      key: 'cancel',
      width: 150,
      render: (_, transfer) =>
        active(transfer) ? (
          <Popconfirm
            title="Are you sure to cancel this transfer?"
            okText="Yes"
            cancelText="No"
            onConfirm={() => cancel(transfer)}
          >
            <Button size="small" danger aria-label={`Cancel ${transferName(transfer)}`}>
              Cancel
            </Button>
          </Popconfirm>
        ) : transfer.status === 'failed' && !transfer.retried ? (
          <Button size="small" onClick={() => void retryFailed(transfer)}>
            Retry Failed Files
          </Button>
        ) : null,
    },
  ];

  const emptyText = agent.serverError ? (
    <Empty description={agent.serverError}>
      <Button onClick={() => void agent.retry()}>Retry</Button>
    </Empty>
  ) : (
    <Empty description={agentMessages.noOngoing}>
      <Button onClick={() => void agent.refresh()}>Refresh</Button>
    </Empty>
  );

  const withErrors = agent.transfers
    .filter((transfer) => transfer.transferErrors.length > 0)
    .map((transfer) => transfer.transferID);

  return (
    <Card title="Transfers">
      <Table<AgentTransfer>
        aria-label="Agent transfers"
        size="small"
        rowKey="transferID"
        columns={columns}
        dataSource={agent.transfers}
        pagination={false}
        locale={{ emptyText }}
        expandable={{
          showExpandColumn: false,
          expandedRowKeys: withErrors,
          rowExpandable: (transfer) => transfer.transferErrors.length > 0,
          expandedRowRender: (transfer) => (
            <ul aria-label={`Errors of ${transferName(transfer)}`} style={{ margin: 0 }}>
              {transfer.transferErrors.map((failure) => (
                <li key={`${failure.file}:${failure.error}`}>
                  {failure.file}: {failure.error}
                </li>
              ))}
            </ul>
          ),
        }}
      />
    </Card>
  );
}
