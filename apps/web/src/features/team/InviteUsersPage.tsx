import { useState } from 'react';
import { Alert, App, Button, Flex, Form, Input, Modal, Select, Typography } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import {
  CARD_REQUIRED,
  ROLE_ID,
  SEAT_PRICE_MONTHLY,
  assignableRoles,
  billingMessages,
  completeInviteRows,
  memberMessages,
  type InviteRow,
} from '@cumulo/contract';
import { ApiError, describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { useDocumentTitle } from '../../ui/useDocumentTitle.ts';
import { useProfile } from '../profile/useProfile.ts';
import { inviteUsers } from './team-api.ts';

/** The invite form starts with three rows (spec 002 §5). */
const FIRST_ROWS = 3;

interface RowState {
  first_name: string;
  last_name: string;
  email: string;
  role_id: number | null;
}

const emptyRow = (): RowState => ({ first_name: '', last_name: '', email: '', role_id: null });

/** The server's field messages keyed `{row}.{field}`. */
function rowErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || !error.body || typeof error.body !== 'object') return {};
  const errors = (error.body as { errors?: Record<string, string[]> }).errors ?? {};
  return Object.fromEntries(
    Object.entries(errors).flatMap(([key, list]) => (/^\d+\./.test(key) && list[0] ? [[key, list[0]]] : [])),
  );
}

/** /users/invite: rows of first name, last name, e-mail and role; only complete rows are sent (spec 002 §5). */
export function InviteUsersPage() {
  useDocumentTitle('Invite Users');
  const { data: profile } = useProfile();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [rows, setRows] = useState<RowState[]>(() => Array.from({ length: FIRST_ROWS }, emptyRow));
  const [seatNotice, setSeatNotice] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});

  const invite = useMutation({
    mutationFn: (list: InviteRow[]) => inviteUsers(list),
    onSuccess: (text) => {
      void message.success(text);
      void queryClient.invalidateQueries({ queryKey: queryKeys.members });
      // /users lists the new invitations under Pending invitations.
      void queryClient.invalidateQueries({ queryKey: queryKeys.pendingInvitations });
      navigate('/users');
    },
    onError: (error) => {
      // Only an Owner adds cards, on /billing; an Admin stays here and is told who can.
      if (error instanceof ApiError && error.code === CARD_REQUIRED && profile?.role.title === 'Owner') {
        void message.error(describeError(error));
        navigate('/billing');
        return;
      }
      if (error instanceof ApiError && error.code === CARD_REQUIRED) {
        setFieldErrors({});
        setProblem(`${describeError(error)} ${billingMessages.ownerOnly}`);
        return;
      }
      setFieldErrors(rowErrors(error));
      setProblem(describeError(error));
    },
  });

  const roleOptions = assignableRoles(profile?.role.title ?? 'User', 'invite').map((title) => ({
    value: ROLE_ID[title],
    label: title,
  }));
  const update = (index: number, patch: Partial<RowState>) =>
    setRows((current) => current.map((row, i) => (i === index ? { ...row, ...patch } : row)));

  const send = () => invite.mutate(rows);
  const submit = () => {
    setProblem(null);
    setFieldErrors({});
    if (completeInviteRows(rows).length === 0) {
      setProblem(memberMessages.noCompleteRow);
      return;
    }
    // Each new member is a paid seat: someone without billing info is told the price first.
    if (profile && !profile.has_billing_info) setSeatNotice(true);
    else send();
  };

  return (
    <Flex vertical gap={16} style={{ maxWidth: 960 }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Invite Users
      </Typography.Title>
      <Form name="invite-users" layout="vertical" onFinish={submit}>
        {rows.map((row, index) => (
          <Flex key={index} gap={8} wrap align="start" data-testid="invite-row">
            {(
              [
                ['first_name', 'First Name'],
                ['last_name', 'Last Name'],
                ['email', 'Email'],
              ] as const
            ).map(([field, label]) => (
              <Form.Item
                key={field}
                label={label}
                htmlFor={`invite-${index}-${field}`}
                validateStatus={fieldErrors[`${index}.${field}`] ? 'error' : undefined}
                help={fieldErrors[`${index}.${field}`]}
                style={{ flex: field === 'email' ? 2 : 1, minWidth: 160 }}
              >
                <Input
                  id={`invite-${index}-${field}`}
                  type={field === 'email' ? 'email' : 'text'}
                  value={row[field]}
                  onChange={(event) => update(index, { [field]: event.target.value })}
                />
              </Form.Item>
            ))}
            <Form.Item
              label="Role"
              htmlFor={`invite-${index}-role`}
              validateStatus={fieldErrors[`${index}.role_id`] ? 'error' : undefined}
              help={fieldErrors[`${index}.role_id`]}
              style={{ flex: 1, minWidth: 140 }}
            >
              <Select
                id={`invite-${index}-role`}
                aria-label={`Role of row ${index + 1}`}
                placeholder="Select a role"
                options={roleOptions}
                value={row.role_id}
                onChange={(roleId: number) => update(index, { role_id: roleId })}
              />
            </Form.Item>
          </Flex>
        ))}
        <Flex gap={8} style={{ marginBottom: 16 }}>
          <Button icon={<PlusOutlined />} onClick={() => setRows((current) => [...current, emptyRow()])}>
            Add row
          </Button>
        </Flex>
        {problem && <Alert type="error" showIcon title={problem} style={{ marginBottom: 16 }} />}
        <Button type="primary" htmlType="submit" loading={invite.isPending}>
          Send Invites
        </Button>
      </Form>
      <Modal
        open={seatNotice}
        title="New users are billed"
        okText="Continue"
        onOk={() => {
          setSeatNotice(false);
          send();
        }}
        onCancel={() => setSeatNotice(false)}
      >
        {memberMessages.seatNotice(SEAT_PRICE_MONTHLY)}
      </Modal>
    </Flex>
  );
}
