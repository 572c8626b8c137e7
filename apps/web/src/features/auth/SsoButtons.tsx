import type { ReactNode } from 'react';
import { App, Button, Divider } from 'antd';
import { GoogleOutlined } from '@ant-design/icons';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import type { SsoService } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { queryKeys } from '../../api/query-keys.ts';
import { fetchAuthProviders, startSso } from './auth-api.ts';
import { rememberSsoReturnUrl } from './sso-return-url.ts';

/** The single sign-on buttons the server offers; a server that cannot say offers none. */
export function useAuthProviders() {
  return useQuery({
    queryKey: queryKeys.authProviders,
    queryFn: fetchAuthProviders,
    staleTime: Infinity,
    retry: false,
  });
}

/** Sends the browser to the provider; it comes back to /login, which finishes the sign-in. */
export function SsoButton({
  service,
  icon,
  children,
}: {
  service: SsoService;
  icon?: ReactNode;
  children: ReactNode;
}) {
  const { message } = App.useApp();
  const [searchParams] = useSearchParams();
  const start = useMutation({
    mutationFn: () => startSso(service),
    onSuccess: (authorizationUrl) => {
      rememberSsoReturnUrl(searchParams.get('returnUrl'));
      window.location.assign(authorizationUrl);
    },
    onError: (error) => void message.error(describeError(error)),
  });
  return (
    <Button block icon={icon} loading={start.isPending || start.isSuccess} onClick={() => start.mutate()}>
      {children}
    </Button>
  );
}

/** "or" and the Google button, on /login and /signup, only when the server has Google configured. */
export function GoogleSignIn({ label }: { label: string }) {
  const providers = useAuthProviders();
  if (!providers.data?.google) return null;
  return (
    <>
      <Divider plain>or</Divider>
      <SsoButton service="Google" icon={<GoogleOutlined />}>
        {label}
      </SsoButton>
    </>
  );
}
