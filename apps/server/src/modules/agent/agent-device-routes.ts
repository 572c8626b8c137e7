/**
 * Every route a transfer agent's device token may call (`METHOD` and the route as registered, under /api). The
 * auth hook answers 403 to a device on any other route, so a stolen token moves files through signed URLs at
 * most: it cannot delete objects, read the member's profile, manage keys or devices, or change settings.
 */
export const AGENT_DEVICE_ROUTES: ReadonlySet<string> = new Set([
  'GET /api/agent/me',
  'POST /api/agent/tickets/redeem',
  'POST /api/agent/downloads',
  'POST /api/agent/downloads/urls',
  'POST /api/agent/history',
  // The direct-upload calls the agent's uploads make, as the browser's do (modules/uploads).
  'POST /api/transfers/uploads',
  'POST /api/transfers/uploads/batch',
  'POST /api/transfers/uploads/batch/complete',
  'GET /api/transfers/url_signer_v4',
  'POST /api/transfers/uploads/:session_id/complete',
  'DELETE /api/transfers/uploads/:session_id',
  // Spec 001 §7 share: the agent shares what it uploaded.
  'POST /api/transfers/share_files_by_email',
]);
