import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { AUTH_STORAGE_KEY } from '@cumulo/contract';
import { ApiErrorModals } from '../app/ApiErrorModals.tsx';
import { renderAt } from '../test/render.tsx';
import { stubApi } from '../test/fake-api.ts';
import { api, ApiError } from './client.ts';

/** A page that shows the modals, at the given path, like the app's root shell does. */
function renderModalsAt(path: string) {
  return renderAt(path, [{ path: '*', element: <ApiErrorModals /> }]);
}

async function failureOf(call: Promise<unknown>): Promise<ApiError> {
  const error = await call.then(
    () => null,
    (reason: unknown) => reason,
  );
  if (!(error instanceof ApiError)) throw new Error('expected the call to fail with an ApiError');
  return error;
}

describe('API client (the network is stubbed with vi.stubGlobal fetch)', () => {
  it('sends JSON under /api with the stored bearer token', async () => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'jwt-1');
    const calls = stubApi({ 'PUT /api/users/_me': { status: 200, body: { ok: true } } });

    await expect(api.put('/users/_me', { first_name: 'Ada' })).resolves.toEqual({ ok: true });

    expect(calls[0]?.headers.get('Authorization')).toBe('Bearer jwt-1');
    expect(calls[0]?.headers.get('Content-Type')).toBe('application/json');
    expect(calls[0]?.body).toEqual({ first_name: 'Ada' });
  });

  it('takes the error text from message, else error, else errors.base[0], else the generic text', async () => {
    stubApi({
      'GET /api/a': { status: 500, body: { message: 'From message', error: 'From error' } },
      'GET /api/b': { status: 500, body: { error: 'From error', errors: { base: ['From base'] } } },
      'GET /api/c': { status: 409, body: { errors: { base: ['From base'] } } },
      'GET /api/d': { status: 502 },
    });

    expect((await failureOf(api.get('/a'))).message).toBe('From message');
    expect((await failureOf(api.get('/b'))).message).toBe('From error');
    expect((await failureOf(api.get('/c'))).message).toBe('From base');
    expect((await failureOf(api.get('/d'))).message).toBe('Something went wrong. Please try again later.');
  });

  it('answers a 401 with the sign-in-again modal, whose button signs out and returns to the page', async () => {
    localStorage.setItem(AUTH_STORAGE_KEY, 'expired');
    localStorage.setItem('other', 'kept until sign-out');
    stubApi({ 'GET /api/users/_me': { status: 401, body: { message: 'Token expired' } } });
    const { user, location } = renderModalsAt('/profile/edit?tab=name');

    expect((await failureOf(api.get('/users/_me'))).status).toBe(401);

    const dialog = await screen.findByRole('dialog', { name: 'Please sign in again' });
    expect(dialog).toHaveTextContent('You were signed out of your account.');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(localStorage.length).toBe(0);
    expect(location()).toBe('/login?returnUrl=%2Fprofile%2Fedit%3Ftab%3Dname');
    // Gone at once, not fading out over the sign-in form with a second 'Sign in' button.
    expect(screen.queryByRole('button', { name: 'Sign in' })).not.toBeInTheDocument();
  });

  it('ignores a late 401 once the session is ended (Sign in clicked, token cleared)', async () => {
    // A request sent with the old token may answer after Sign in cleared the session, while the app is still
    // leaving the page: it must not open the modal again over /login.
    stubApi({ 'GET /api/users/_me': { status: 401, body: { message: 'Token expired' } } });
    renderModalsAt('/profile');

    expect((await failureOf(api.get('/users/_me'))).status).toBe(401);

    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByRole('dialog', { name: 'Please sign in again' })).not.toBeInTheDocument();
  });

  it('shows no sign-in-again modal for the sign-in calls themselves', async () => {
    stubApi({
      'POST /api/authentication/Login': { status: 401, body: { message: 'Incorrect username or password.' } },
    });
    renderModalsAt('/profile');

    const error = await failureOf(api.post('/authentication/Login', {}));

    expect(error.message).toBe('Incorrect username or password.');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it.each(['/login', '/sharing/abc', '/desktop'])('shows no sign-in-again modal on %s', async (path) => {
    stubApi({ 'GET /api/users/_me': { status: 401, body: { message: 'Token expired' } } });
    renderModalsAt(path);

    await failureOf(api.get('/users/_me'));

    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it("lists each field's messages of a 400 in the 'Error' modal, closed with Close", async () => {
    stubApi({
      'PUT /api/users/_me': {
        status: 400,
        body: {
          message: 'Validation failed',
          errors: { first_name: ['First name is required.'], last_name: ['Last name is required.'] },
        },
      },
    });
    const { user } = renderModalsAt('/profile/edit');

    await failureOf(api.put('/users/_me', {}));

    const dialog = await screen.findByRole('dialog', { name: 'Error' });
    expect(dialog).toHaveTextContent('First name is required.');
    expect(dialog).toHaveTextContent('Last name is required.');
    await user.click(screen.getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Error' })).not.toBeInTheDocument());
  });

  it('shows the message of a 400 without field errors', async () => {
    stubApi({ 'POST /api/things': { status: 400, body: { message: 'Name is required.' } } });
    renderModalsAt('/things');

    await failureOf(api.post('/things', {}));

    expect(await screen.findByRole('dialog', { name: 'Error' })).toHaveTextContent('Name is required.');
  });

  it('leaves a 400 to the screen when the call is silent', async () => {
    stubApi({
      'POST /api/users': { status: 400, body: { errors: { email: ['Please enter a valid email.'] } } },
    });
    renderModalsAt('/signup');

    const error = await failureOf(api.post('/users', {}, { silent: true }));

    expect(error.status).toBe(400);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});
