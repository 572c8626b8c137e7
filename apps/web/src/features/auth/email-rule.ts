import type { FormRule } from 'antd';
import { validateEmail } from '@cumulo/contract';

/** antd form rule running the contract's e-mail rule ('Please enter an email.' / 'Please enter a valid email.'). */
export const emailRule: FormRule = {
  validator: (_rule, value: unknown) => {
    const problem = validateEmail(typeof value === 'string' ? value : '');
    return problem ? Promise.reject(new Error(problem)) : Promise.resolve();
  },
};
