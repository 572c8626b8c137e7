import { useEffect, useState } from 'react';
import { Alert, App, Button, Card, Space, Typography } from 'antd';
import { Link } from 'react-router';
import { AGENT_PLATFORM_TITLES, AGENT_TRANSFER_POLL_MS, agentMessages } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { AgentError, agentClient } from './agent-client.ts';
import { useCreatePairingCode } from './agent-api.ts';
import type { AgentState } from './use-agent.ts';

const PAIRING_WAITING =
  'A pairing code waits for your confirmation in the terminal where the transfer agent runs.';

/** The link of the agent's download page (spec 000 §2 /desktop). */
const AGENT_DOWNLOAD_PATH = '/desktop';

function failureText(error: unknown): string {
  return error instanceof AgentError ? error.message : describeError(error);
}

/**
 * The top of the Transfer agent screen (spec 001 §2 "agent download/launch banner"): not running → Launch and
 * Download; running but not paired → Pair; a transfer-server error → its text and Retry; else who is connected.
 */
export function AgentBanner({ agent }: { agent: AgentState }) {
  const { message } = App.useApp();
  // Set when this page sent a code: the heartbeat turning paired is then this user's confirmation.
  const [awaitingPair, setAwaitingPair] = useState(false);
  const paired = agent.heartbeat?.paired === true;
  useEffect(() => {
    if (awaitingPair && paired) {
      setAwaitingPair(false);
      void message.success(agentMessages.paired);
    }
  }, [awaitingPair, paired, message]);

  if (!agent.running) {
    return (
      <Alert
        type="warning"
        showIcon
        title={agentMessages.notRunning}
        action={
          <Space>
            <Button type="primary" loading={agent.launching} onClick={agent.launch}>
              {agentMessages.launchAgent}
            </Button>
            <Link to={AGENT_DOWNLOAD_PATH}>Download</Link>
          </Space>
        }
      />
    );
  }
  if (agent.needsPairing) return <PairPanel agent={agent} onCodeSent={() => setAwaitingPair(true)} />;
  if (agent.serverError) {
    return (
      <Alert
        type="error"
        showIcon
        title={agentMessages.serverError}
        description={agent.serverError}
        action={<Button onClick={() => void agent.retry()}>Retry</Button>}
      />
    );
  }
  const beat = agent.heartbeat;
  return (
    <Alert
      type="success"
      showIcon
      title={agent.key ? 'Transfer agent connected' : 'Connecting to the transfer agent…'}
      description={
        beat ? `Cumulo transfer agent ${beat.version} on ${AGENT_PLATFORM_TITLES[beat.platform]}` : undefined
      }
    />
  );
}

/**
 * Pairing from the page: the server gives a one-time code, the page hands it to the agent, and the user confirms
 * it in the agent's terminal. While the page waits for that, it asks the agent every second rather than every
 * five: the user is looking at the screen.
 */
function PairPanel({ agent, onCodeSent }: { agent: AgentState; onCodeSent(): void }) {
  const createCode = useCreatePairingCode();
  const [code, setCode] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const { refresh } = agent;

  useEffect(() => {
    if (!code) return;
    const timer = window.setInterval(() => void refresh(), AGENT_TRANSFER_POLL_MS);
    return () => window.clearInterval(timer);
  }, [code, refresh]);

  const pair = async () => {
    setError(null);
    setSending(true);
    try {
      const pairing = await createCode.mutateAsync();
      await agentClient.pair(pairing.code);
      setCode(pairing.code);
      onCodeSent();
    } catch (failure) {
      agent.reportFailure(failure);
      setError(failureText(failure));
    } finally {
      setSending(false);
    }
  };

  return (
    <Card title={agentMessages.pairTitle}>
      <Space orientation="vertical" style={{ width: '100%' }}>
        <Typography.Text>{agentMessages.notPaired}</Typography.Text>
        {code ? <Alert type="info" showIcon title={agentMessages.pairConfirmInTerminal(code)} /> : null}
        {/* A code sent before (another tab, or this one before a reload) may still wait in the agent's terminal. */}
        {!code && agent.heartbeat?.pairing ? <Alert type="info" showIcon title={PAIRING_WAITING} /> : null}
        {code ? null : (
          <Button type="primary" loading={sending} onClick={() => void pair()}>
            Pair
          </Button>
        )}
        {error ? (
          <Alert
            type="error"
            showIcon
            title={error}
            action={<Button onClick={() => void pair()}>Retry</Button>}
          />
        ) : null}
      </Space>
    </Card>
  );
}
