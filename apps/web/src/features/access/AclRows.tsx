import { Divider, Switch, Tag, Tooltip, Typography } from 'antd';
import type { RolePermission } from '@cumulo/contract';
import { PermissionValueInput } from './PermissionValueInput.tsx';

/** One service ACL as a row: role ACLs and a member's share it. */
export interface AclRow {
  id: string;
  title: string;
  enabled: boolean;
  has_permissions: boolean;
  /** A member's row without their own setting. */
  follows_role?: boolean;
}

interface AclRowsProps {
  acls: AclRow[];
  /** Why the viewer cannot change these (the server's words), or null when they can. */
  refusal: string | null;
  onToggle: (acl: AclRow, enabled: boolean) => Promise<unknown>;
  /** The permissions of a row that has some, as loaded by the caller. */
  permissionsOf: (acl: AclRow) => (RolePermission & { follows_role?: boolean })[] | undefined;
  onSaveValue: (acl: AclRow, permission: RolePermission, value: number) => Promise<unknown>;
}

/**
 * The service toggles (a switch labelled with the service's title) with their permission values below. A refused
 * change is said by the caller's mutation (its onError), so the promises here end quietly.
 */
export function AclRows({ acls, refusal, onToggle, permissionsOf, onSaveValue }: AclRowsProps) {
  const quietly = (work: Promise<unknown>) => void work.catch(() => undefined);
  return (
    <div>
      {acls.map((acl, index) => (
        <div key={acl.id}>
          {index > 0 && <Divider style={{ margin: '12px 0' }} />}
          <div>
            <Tooltip title={refusal ?? undefined}>
              <span style={{ display: 'inline-flex', gap: 8, alignItems: 'center' }}>
                <Switch
                  aria-label={acl.title}
                  checked={acl.enabled}
                  disabled={refusal !== null}
                  onChange={(checked) => quietly(onToggle(acl, checked))}
                />
                <Typography.Text strong>{acl.title}</Typography.Text>
                {acl.follows_role === true && <Tag>Follows role</Tag>}
                {acl.follows_role === false && <Tag color="blue">Own setting</Tag>}
              </span>
            </Tooltip>
            {acl.has_permissions &&
              acl.enabled &&
              permissionsOf(acl)?.map((permission) => (
                <div key={permission.id} style={{ marginTop: 8, marginInlineStart: 52 }}>
                  <PermissionValueInput
                    key={permission.value}
                    title={permission.title}
                    value={permission.value}
                    disabled={refusal !== null}
                    onSave={(value) => onSaveValue(acl, permission, value)}
                  />
                  {permission.follows_role === true && (
                    <Typography.Text type="secondary">Follows role</Typography.Text>
                  )}
                </div>
              ))}
          </div>
        </div>
      ))}
    </div>
  );
}
