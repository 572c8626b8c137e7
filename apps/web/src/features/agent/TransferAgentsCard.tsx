import dayjs from 'dayjs';
import { Alert, App, Button, Card, Popconfirm, Space, Table, Typography, type TableColumnsType } from 'antd';
import {
  AGENT_PLATFORM_TITLES,
  agentMessages,
  roleMay,
  type AgentDevice,
  type AgentPairingCode,
  type UserProfile,
} from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { DateText } from '../../ui/DateText.tsx';
import { useAgentDevices, useCreatePairingCode, useRevokeDevice } from './agent-api.ts';

/** The shell command that pairs a headless machine (apps/agent's README). */
function pairCommand(code: string, origin = window.location.origin): string {
  return `cumulo-agent pair ${code} --server ${origin}`;
}

function lastSeen(value: string | null) {
  return value ? dayjs(value).format('MM/DD/YYYY HH:mm') : 'Never';
}

/**
 * /profile "Transfer agents": the devices paired with the caller's account (an Owner's or Admin's: the
 * organisation's), each revocable at once, and a pairing code for a machine without a browser.
 */
export function TransferAgentsCard({ profile }: { profile: UserProfile }) {
  const { message } = App.useApp();
  const devices = useAgentDevices();
  const revoke = useRevokeDevice();
  const createCode = useCreatePairingCode();
  // The server decides; these hide what it would refuse (authz rules 'agent.revoke' and 'agent.pair').
  const seesOthers = roleMay(profile.role.title, 'agent.revoke');
  const mayRevoke = (device: AgentDevice) => seesOthers || device.user_id === profile.id;
  const mayPair = roleMay(profile.role.title, 'agent.pair');

  const onRevoke = async (device: AgentDevice) => {
    try {
      await revoke.mutateAsync(device.id);
      void message.success(agentMessages.deviceRevoked);
    } catch (error) {
      void message.error(describeError(error));
    }
  };

  const columns: TableColumnsType<AgentDevice> = [
    { title: 'Name', dataIndex: 'name', key: 'name' },
    {
      title: 'Platform',
      key: 'platform',
      render: (_, device) => AGENT_PLATFORM_TITLES[device.platform],
    },
    ...(seesOthers
      ? [{ title: 'User', dataIndex: 'user_email', key: 'user' } as TableColumnsType<AgentDevice>[number]]
      : []),
    { title: 'Paired', key: 'paired', render: (_, device) => <DateText value={device.created_at} /> },
    { title: 'Last seen', key: 'seen', render: (_, device) => lastSeen(device.last_seen_at) },
    {
      title: '',
      key: 'revoke',
      width: 100,
      render: (_, device) =>
        mayRevoke(device) ? (
          <Popconfirm
            title={`Revoke ${device.name}?`}
            description="Its agent stops acting for you at once; pairing it again needs a new code."
            okText="Revoke"
            okButtonProps={{ danger: true }}
            onConfirm={() => onRevoke(device)}
          >
            <Button size="small" danger aria-label={`Revoke ${device.name}`}>
              Revoke
            </Button>
          </Popconfirm>
        ) : null,
    },
  ];

  return (
    <Card
      title="Transfer agents"
      extra={
        mayPair ? (
          <Button loading={createCode.isPending} onClick={() => createCode.mutate()}>
            Pair a device
          </Button>
        ) : null
      }
    >
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        {createCode.data ? <HeadlessPairing pairing={createCode.data} /> : null}
        {createCode.isError ? <Alert type="error" showIcon title={describeError(createCode.error)} /> : null}
        {devices.isError ? (
          <Alert type="error" showIcon title={describeError(devices.error)} />
        ) : (
          <Table<AgentDevice>
            aria-label="Paired transfer agents"
            size="small"
            rowKey="id"
            columns={columns}
            loading={devices.isPending}
            dataSource={devices.data ?? []}
            pagination={false}
            locale={{ emptyText: 'No transfer agent is paired yet.' }}
          />
        )}
      </Space>
    </Card>
  );
}

function HeadlessPairing({ pairing }: { pairing: AgentPairingCode }) {
  const command = pairCommand(pairing.code);
  return (
    <Alert
      type="info"
      showIcon
      title={`Pairing code ${pairing.code}`}
      description={
        <Space orientation="vertical" size={4}>
          <Typography.Text>On the machine to pair, run:</Typography.Text>
          <Typography.Text code copyable={{ text: command }}>
            {command}
          </Typography.Text>
          <Typography.Text type="secondary">
            The agent pairs at once; restart it if it was already running. The code works once and expires at{' '}
            {dayjs(pairing.expires_at).format('HH:mm')} ({dayjs(pairing.expires_at).format('MM/DD/YYYY')}).
          </Typography.Text>
        </Space>
      }
    />
  );
}
