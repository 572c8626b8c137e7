import { Alert, App, Button, Space } from 'antd';
import { formatBytes, syncMessages, type SyncCycle, type UserProfile } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { useProfile } from '../profile/useProfile.ts';
import { useDecideSync } from './sync-api.ts';

/** Only an Owner or an Admin decides on a cycle's waiting deletes (the server refuses role User). */
export function isApprover(profile: UserProfile | undefined): boolean {
  const role = profile?.role.title;
  return role === 'Owner' || role === 'Admin';
}

interface ApprovalBannerProps {
  /** The job as the list names it ("source to destination"). */
  jobName: string;
  cycle: SyncCycle;
}

/**
 * A cycle paused before its deletes (more than the job's threshold): everyone sees what it would delete; an
 * Owner or an Admin approves or rejects it here.
 */
export function ApprovalBanner({ jobName, cycle }: ApprovalBannerProps) {
  const { message } = App.useApp();
  const profile = useProfile().data;
  const decide = useDecideSync();

  const onDecide = async (approve: boolean) => {
    try {
      const answer = await decide.mutateAsync({ cycleId: cycle.id, approve });
      void message.success(answer.message);
    } catch (error) {
      void message.error(describeError(error));
    }
  };

  return (
    <div role="region" aria-label={`Approval for ${jobName}`}>
      <Alert
        type="warning"
        showIcon
        title={syncMessages.waitingApproval(cycle.deleteCount, formatBytes(cycle.deleteBytes))}
        description={jobName}
        action={
          isApprover(profile) ? (
            <Space>
              <Button
                type="primary"
                danger
                size="small"
                loading={decide.isPending && decide.variables.approve}
                disabled={decide.isPending}
                onClick={() => void onDecide(true)}
              >
                Approve
              </Button>
              <Button
                size="small"
                loading={decide.isPending && !decide.variables.approve}
                disabled={decide.isPending}
                onClick={() => void onDecide(false)}
              >
                Reject
              </Button>
            </Space>
          ) : null
        }
      />
    </div>
  );
}
