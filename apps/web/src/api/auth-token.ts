import { AUTH_STORAGE_KEY } from '@cumulo/contract';

/** The stored authorization value (a JWT), or null when signed out. */
export function getStoredToken(): string | null {
  try {
    return localStorage.getItem(AUTH_STORAGE_KEY);
  } catch {
    return null;
  }
}

export function storeToken(token: string): void {
  localStorage.setItem(AUTH_STORAGE_KEY, token);
}

/** Spec 000 §4: logout and an HTTP 401 clear local storage, not just the token. */
export function clearStoredSession(): void {
  localStorage.clear();
}
