import { useEffect, useState } from 'react';
import { Button, Modal, Result, Spin } from 'antd';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { messages, VERIFIED_REDIRECT_MS } from '@cumulo/contract';
import { describeError } from '../../api/client.ts';
import { AuthCard } from '../../ui/AuthCard.tsx';
import { verifyAccount } from './auth-api.ts';

type Verification = { kind: 'verifying' } | { kind: 'verified' } | { kind: 'failed'; reason: string };

/** /verify/:token? (token also as query): verifying, then verified (to /login after 5 s) or failed (spec 000 §4). */
export function VerifyPage() {
  const { token: pathToken } = useParams();
  const [searchParams] = useSearchParams();
  const token = pathToken ?? searchParams.get('token');
  const navigate = useNavigate();
  const [verification, setVerification] = useState<Verification>(() =>
    token ? { kind: 'verifying' } : { kind: 'failed', reason: messages.verifyLinkInvalid },
  );
  const [popupOpen, setPopupOpen] = useState(true);

  useEffect(() => {
    if (!token) return;
    let current = true;
    verifyAccount(token).then(
      () => current && setVerification({ kind: 'verified' }),
      (error: unknown) => current && setVerification({ kind: 'failed', reason: describeError(error) }),
    );
    return () => {
      current = false;
    };
  }, [token]);

  useEffect(() => {
    if (verification.kind !== 'verified') return;
    const timer = setTimeout(() => navigate('/login', { replace: true }), VERIFIED_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [verification.kind, navigate]);

  return (
    <AuthCard title="Account verification">
      {verification.kind === 'verifying' && (
        <div style={{ textAlign: 'center', padding: 24 }}>
          <Spin />
          <p style={{ marginTop: 16 }}>Verifying your email address…</p>
        </div>
      )}
      {verification.kind === 'verified' && (
        <Result
          status="success"
          title={messages.accountVerified}
          subTitle={`Redirecting to login in ${VERIFIED_REDIRECT_MS / 1000} seconds.`}
          extra={<Link to="/login">Go to login now</Link>}
        />
      )}
      {verification.kind === 'failed' && (
        <>
          <Result
            status="error"
            title="We could not verify your email address."
            extra={<Link to="/login">Go to login</Link>}
          />
          <Modal
            open={popupOpen}
            title="Account verification failed"
            closable={false}
            onCancel={() => setPopupOpen(false)}
            footer={<Button onClick={() => setPopupOpen(false)}>Close</Button>}
          >
            <p>{verification.reason}</p>
          </Modal>
        </>
      )}
    </AuthCard>
  );
}
