import type { ReactNode } from 'react';
import { useDocumentTitle } from './useDocumentTitle.ts';

interface AuthCardProps {
  title: string;
  children: ReactNode;
}

/**
 * The centred card of the sign-in, sign-up and account e-mail screens. Plain elements styled in index.css
 * rather than antd Card/Typography: these screens are the first load, and those two weigh ~30 KB gzip.
 */
export function AuthCard({ title, children }: AuthCardProps) {
  useDocumentTitle(title);
  return (
    <main className="auth-page">
      <div className="auth-column">
        <div className="auth-brand">Cumulo</div>
        <section className="auth-card" aria-labelledby="auth-card-title">
          <h1 id="auth-card-title" className="auth-title">
            {title}
          </h1>
          {children}
        </section>
      </div>
    </main>
  );
}
