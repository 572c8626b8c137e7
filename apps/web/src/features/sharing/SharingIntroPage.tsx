import { Button } from 'antd';
import { useNavigate } from 'react-router';
import { SHARE_EXPIRATION_DEFAULT_SECONDS } from '@cumulo/contract';
import { AuthCard } from '../../ui/AuthCard.tsx';

const DEFAULT_EXPIRY_DAYS = SHARE_EXPIRATION_DEFAULT_SECONDS / 86_400;
const SHARING_PATH = '/sharing';

/**
 * /sharing signed out (spec 000 §2 lists it among the public routes): what a shared link is, and sign-in for the
 * members who want their organisation's list. It calls no API, so no signed-in call can answer 401 here.
 */
export function SharingIntroPage() {
  const navigate = useNavigate();
  return (
    <AuthCard title="Shared Files">
      <p>
        A shared link is how someone using Cumulo sends you files from their cloud storage. They pick the
        files in a bucket and share them by e-mail or to a chat channel, and you receive a link to a share
        page.
      </p>
      <p>
        Opening the link shows that share page with the files and a Download button for each; you need no
        account for it. A link may be password protected: the sender gives you the password. It works until it
        expires ({DEFAULT_EXPIRY_DAYS} days unless the sender chose otherwise) or the sender revokes it.
      </p>
      <p>Members of an organisation sign in to see the links they shared and revoke them.</p>
      <Button
        type="primary"
        block
        onClick={() => navigate(`/login?returnUrl=${encodeURIComponent(SHARING_PATH)}`)}
      >
        Sign in
      </Button>
    </AuthCard>
  );
}
