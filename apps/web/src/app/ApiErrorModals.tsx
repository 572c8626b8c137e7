import { useEffect, useState } from 'react';
import { Button, Modal } from 'antd';
import { useLocation, useNavigate } from 'react-router';
import { messages } from '@cumulo/contract';
import { badRequestChannel, unauthorizedChannel } from '../api/api-events.ts';
import { getStoredToken } from '../api/auth-token.ts';
import { useEndSession } from '../api/session.ts';
import { isPublicPath } from './public-paths.ts';

/** The shared answers to HTTP 401 and 400 of spec 000 §8, fed by the API client. */
export function ApiErrorModals() {
  const location = useLocation();
  const navigate = useNavigate();
  const endSession = useEndSession();
  const [signInAgain, setSignInAgain] = useState(false);
  const [badRequest, setBadRequest] = useState<string[] | null>(null);
  const onPublicPath = isPublicPath(location.pathname);

  useEffect(
    () =>
      unauthorizedChannel.subscribe(() => {
        // Once the session is ended (Sign in clicked), late 401s of requests made with the old token must not
        // open the modal again on the way to /login.
        if (!onPublicPath && getStoredToken() !== null) setSignInAgain(true);
      }),
    [onPublicPath],
  );
  useEffect(() => badRequestChannel.subscribe((event) => setBadRequest(event.messages)), []);

  const signIn = () => {
    const returnUrl = `${location.pathname}${location.search}`;
    endSession();
    setSignInAgain(false);
    setBadRequest(null);
    navigate(`/login?returnUrl=${encodeURIComponent(returnUrl)}`, { replace: true });
  };

  return (
    <>
      {/* Mounted only while open: the hand-off to /login must not leave a fading copy of the dialog, with a second
          'Sign in' button, over the sign-in form. */}
      {signInAgain && !onPublicPath && (
        <Modal
          open
          title={messages.signInAgainTitle}
          closable={false}
          mask={{ closable: false }}
          keyboard={false}
          footer={
            <Button type="primary" onClick={signIn}>
              Sign in
            </Button>
          }
        >
          <p>{messages.signInAgainBody}</p>
        </Modal>
      )}
      <Modal
        open={badRequest !== null && !signInAgain}
        title="Error"
        closable={false}
        onCancel={() => setBadRequest(null)}
        footer={<Button onClick={() => setBadRequest(null)}>Close</Button>}
      >
        <ul>
          {(badRequest ?? []).map((text, index) => (
            <li key={`${index}-${text}`}>{text}</li>
          ))}
        </ul>
      </Modal>
    </>
  );
}
