import { useState } from 'react';
import { Form, Input, Tooltip } from 'antd';
import { newPasswordState, type NewPasswordState } from '@cumulo/contract';

export type PasswordPair = NewPasswordState;

const EMPTY_PAIR: PasswordPair = {
  password: '',
  confirmPassword: '',
  passwordVisited: false,
  repasswordVisited: false,
};

/** State of a new-password pair and the contract's rule over it (tooltips, submit allowed). */
export function usePasswordPair(initial: Partial<PasswordPair> = {}) {
  const [pair, setPair] = useState<PasswordPair>({ ...EMPTY_PAIR, ...initial });
  return { pair, setPair, rule: newPasswordState(pair) };
}

interface NewPasswordFieldsProps {
  idPrefix: string;
  pair: PasswordPair;
  onChange: (pair: PasswordPair) => void;
  passwordLabel?: string;
  confirmLabel?: string;
  /** Screens with their own mismatch wording (change password) pass it here. */
  mismatchText?: string;
}

/**
 * Password and confirmation fields. Following spec 000 §4, each tooltip appears only once its field was
 * focused: the password rule on the first field, the mismatch text on the second.
 */
export function NewPasswordFields({
  idPrefix,
  pair,
  onChange,
  passwordLabel = 'New Password',
  confirmLabel = 'Confirm Password',
  mismatchText,
}: NewPasswordFieldsProps) {
  const rule = newPasswordState(pair);
  const confirmTooltip = rule.confirmTooltip && mismatchText ? mismatchText : rule.confirmTooltip;
  const passwordId = `${idPrefix}-new-password`;
  const confirmId = `${idPrefix}-confirm-password`;
  return (
    <>
      <Form.Item label={passwordLabel} htmlFor={passwordId} required>
        <Tooltip
          open={rule.passwordTooltip !== null}
          title={rule.passwordTooltip}
          placement="right"
          destroyOnHidden
        >
          <Input.Password
            id={passwordId}
            autoComplete="new-password"
            value={pair.password}
            status={rule.passwordTooltip ? 'error' : undefined}
            onFocus={() => onChange({ ...pair, passwordVisited: true })}
            onChange={(event) => onChange({ ...pair, password: event.target.value, passwordVisited: true })}
          />
        </Tooltip>
      </Form.Item>
      <Form.Item label={confirmLabel} htmlFor={confirmId} required>
        <Tooltip open={confirmTooltip !== null} title={confirmTooltip} placement="right" destroyOnHidden>
          <Input.Password
            id={confirmId}
            autoComplete="new-password"
            value={pair.confirmPassword}
            status={confirmTooltip ? 'error' : undefined}
            onFocus={() => onChange({ ...pair, repasswordVisited: true })}
            onChange={(event) =>
              onChange({ ...pair, confirmPassword: event.target.value, repasswordVisited: true })
            }
          />
        </Tooltip>
      </Form.Item>
    </>
  );
}
