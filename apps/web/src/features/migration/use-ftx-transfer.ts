import { App } from 'antd';
import { agentMessages, type AgentDirection, type UserProfile } from '@cumulo/contract';
import { AgentError } from '../agent/agent-client.ts';
import { ftxActivated } from '../agent/agent-format.ts';
import type { AgentState } from '../agent/use-agent.ts';
import { chargeConfirmed } from './migration-api.ts';

const launchBefore = (direction: AgentDirection) =>
  direction === 'upload' ? agentMessages.launchBeforeUpload : agentMessages.launchBeforeDownload;

interface FtxTransferOptions {
  agent: AgentState;
  profile: UserProfile | undefined;
  /** The screen's quota gate (spec §5): ftX bytes count against the `fc` quota. */
  quotaCheck(profile: UserProfile, bytes: number): boolean;
  /** The organisation has not confirmed the ftX charge: open the "Ftx Transfer" modal. */
  onChargeNeeded(): void;
}

/**
 * Starting an ftX transfer from a screen (spec 001 §4 "Transfer flow", §5 "Agent uploads/downloads need the agent
 * running and no server error"): the checks before anything moves, and the words for a refusal of the agent.
 */
export function useFtxTransfer({ agent, profile, quotaCheck, onChargeNeeded }: FtxTransferOptions) {
  const { message } = App.useApp();

  /** The connection key when the agent runs, is paired and connected without a server error; else a warning. */
  const agentReady = (direction: AgentDirection): string | null => {
    if (!ftxActivated(profile)) {
      void message.error(agentMessages.notActivated);
      return null;
    }
    if (agent.needsPairing) {
      void message.warning(agentMessages.notPaired);
      return null;
    }
    if (!agent.running || agent.serverError !== null || agent.key === null) {
      void message.warning(launchBefore(direction));
      return null;
    }
    return agent.key;
  };

  /** The charge is confirmed (else the modal opens) and the bytes fit the quota (else its modal opens). */
  const allowed = (bytes: number): boolean => {
    if (profile && !chargeConfirmed(profile, 'ftx')) {
      onChargeNeeded();
      return false;
    }
    return !profile || quotaCheck(profile, bytes);
  };

  /** The agent refused or did not answer: say why, and let the agent state follow (not running, key dropped). */
  const failed = (error: unknown, direction: AgentDirection) => {
    agent.reportFailure(error);
    const text =
      error instanceof AgentError && error.status === 0
        ? launchBefore(direction)
        : error instanceof Error && error.message
          ? error.message
          : agentMessages.serverError;
    void message.error(text);
  };

  return { agentReady, allowed, failed };
}
