import { lazy } from 'react';
import type { RouteObject } from 'react-router';
import { RequireAuth, type SignedOutHandle } from './RequireAuth.tsx';
import { RootShell } from './RootShell.tsx';
import { RouteErrorPage } from './RouteErrorPage.tsx';

// Every page is its own chunk, so /login loads only what sign-in needs.
const AppLayout = lazy(() => import('./AppLayout.tsx').then((m) => ({ default: m.AppLayout })));
const SettingsLayout = lazy(() =>
  import('./SettingsLayout.tsx').then((m) => ({ default: m.SettingsLayout })),
);
const UsersPage = lazy(() =>
  import('../features/team/UsersPage.tsx').then((m) => ({ default: m.UsersPage })),
);
const InviteUsersPage = lazy(() =>
  import('../features/team/InviteUsersPage.tsx').then((m) => ({ default: m.InviteUsersPage })),
);
const UserDetailPage = lazy(() =>
  import('../features/team/UserDetailPage.tsx').then((m) => ({ default: m.UserDetailPage })),
);
const RolesPage = lazy(() =>
  import('../features/access/RolesPage.tsx').then((m) => ({ default: m.RolesPage })),
);
const RoleGate = lazy(() => import('./RoleGate.tsx').then((m) => ({ default: m.RoleGate })));
const NotFoundPage = lazy(() => import('./NotFoundPage.tsx').then((m) => ({ default: m.NotFoundPage })));
const LoginPage = lazy(() =>
  import('../features/auth/LoginPage.tsx').then((m) => ({ default: m.LoginPage })),
);
const OktaLoginPage = lazy(() =>
  import('../features/auth/OktaLoginPage.tsx').then((m) => ({ default: m.OktaLoginPage })),
);
const SignupPage = lazy(() =>
  import('../features/auth/SignupPage.tsx').then((m) => ({ default: m.SignupPage })),
);
const PostSignupPage = lazy(() =>
  import('../features/auth/PostSignupPage.tsx').then((m) => ({ default: m.PostSignupPage })),
);
const VerifyPage = lazy(() =>
  import('../features/auth/VerifyPage.tsx').then((m) => ({ default: m.VerifyPage })),
);
const VerifyEmailPage = lazy(() =>
  import('../features/auth/VerifyEmailPage.tsx').then((m) => ({ default: m.VerifyEmailPage })),
);
const ResetPasswordPage = lazy(() =>
  import('../features/auth/ResetPasswordPage.tsx').then((m) => ({ default: m.ResetPasswordPage })),
);
const DashboardPage = lazy(() =>
  import('../features/dashboard/DashboardPage.tsx').then((m) => ({ default: m.DashboardPage })),
);
const CloudProvidersPage = lazy(() =>
  import('../features/accounts/CloudProvidersPage.tsx').then((m) => ({ default: m.CloudProvidersPage })),
);
const CloudComparePage = lazy(() =>
  import('../features/compare/CloudComparePage.tsx').then((m) => ({ default: m.CloudComparePage })),
);
const ProfilePage = lazy(() =>
  import('../features/profile/ProfilePage.tsx').then((m) => ({ default: m.ProfilePage })),
);
const EditProfilePage = lazy(() =>
  import('../features/profile/EditProfilePage.tsx').then((m) => ({ default: m.EditProfilePage })),
);
const ChangePasswordPage = lazy(() =>
  import('../features/profile/ChangePasswordPage.tsx').then((m) => ({ default: m.ChangePasswordPage })),
);
const MfaPage = lazy(() => import('../features/mfa/MfaPage.tsx').then((m) => ({ default: m.MfaPage })));
const AccessKeysPage = lazy(() =>
  import('../features/api-keys/AccessKeysPage.tsx').then((m) => ({ default: m.AccessKeysPage })),
);
const RequireWasabiAccess = lazy(() =>
  import('../features/profile/RequireWasabiAccess.tsx').then((m) => ({ default: m.RequireWasabiAccess })),
);
const AddProviderPage = lazy(() =>
  import('../features/providers/AddProviderPage.tsx').then((m) => ({ default: m.AddProviderPage })),
);
const OnboardPage = lazy(() =>
  import('../features/providers/AddProviderPage.tsx').then((m) => ({ default: m.OnboardPage })),
);
const AddBucketPage = lazy(() =>
  import('../features/buckets/AddBucketPage.tsx').then((m) => ({ default: m.AddBucketPage })),
);

const DirectUploadPage = lazy(() =>
  import('../features/upload/DirectUploadPage.tsx').then((m) => ({ default: m.DirectUploadPage })),
);
const RequireDirectUploadAccess = lazy(() =>
  import('../features/upload/RequireDirectUploadAccess.tsx').then((m) => ({
    default: m.RequireDirectUploadAccess,
  })),
);
const SharesPage = lazy(() =>
  import('../features/sharing/SharesPage.tsx').then((m) => ({ default: m.SharesPage })),
);
const SharingIntroPage = lazy(() =>
  import('../features/sharing/SharingIntroPage.tsx').then((m) => ({ default: m.SharingIntroPage })),
);
const SharedLinkPage = lazy(() =>
  import('../features/sharing/SharedLinkPage.tsx').then((m) => ({ default: m.SharedLinkPage })),
);
const AlertsPage = lazy(() =>
  import('../features/alerts/AlertsPage.tsx').then((m) => ({ default: m.AlertsPage })),
);
const BrowsePage = lazy(() =>
  import('../features/browser/BrowsePage.tsx').then((m) => ({ default: m.BrowsePage })),
);
const TransferStatusPage = lazy(() =>
  import('../features/transfers/TransferStatusPage.tsx').then((m) => ({ default: m.TransferStatusPage })),
);

const MigrationPage = lazy(() =>
  import('../features/migration/MigrationPage.tsx').then((m) => ({ default: m.MigrationPage })),
);
const C2cTransferPage = lazy(() =>
  import('../features/migration/C2cTransferPage.tsx').then((m) => ({ default: m.C2cTransferPage })),
);
const CostCalculatorPage = lazy(() =>
  import('../features/migration/CostCalculatorPage.tsx').then((m) => ({ default: m.CostCalculatorPage })),
);
const AgentTransferPage = lazy(() =>
  import('../features/agent/AgentTransferPage.tsx').then((m) => ({ default: m.AgentTransferPage })),
);
const SyncPage = lazy(() => import('../features/sync/SyncPage.tsx').then((m) => ({ default: m.SyncPage })));
const ReplicationPage = lazy(() =>
  import('../features/sync/ReplicationPage.tsx').then((m) => ({ default: m.ReplicationPage })),
);

const BillingPage = lazy(() =>
  import('../features/billing/BillingPage.tsx').then((m) => ({ default: m.BillingPage })),
);
const AddCreditCardPage = lazy(() =>
  import('../features/billing/AddCreditCardPage.tsx').then((m) => ({ default: m.AddCreditCardPage })),
);
const PricingsPage = lazy(() =>
  import('../features/billing/PricingsPage.tsx').then((m) => ({ default: m.PricingsPage })),
);
const PlanPage = lazy(() =>
  import('../features/billing/PlanPage.tsx').then((m) => ({ default: m.PlanPage })),
);
const DesktopPage = lazy(() =>
  import('../features/desktop/DesktopPage.tsx').then((m) => ({ default: m.DesktopPage })),
);
const DesktopBillingPage = lazy(() =>
  import('../features/billing/DesktopBillingPage.tsx').then((m) => ({ default: m.DesktopBillingPage })),
);
const RequirePackage = lazy(() =>
  import('../features/billing/RequirePackage.tsx').then((m) => ({ default: m.RequirePackage })),
);
const AnalyticsPage = lazy(() =>
  import('../features/analytics/AnalyticsPage.tsx').then((m) => ({ default: m.AnalyticsPage })),
);
const AnalyticsOldPage = lazy(() =>
  import('../features/analytics/old/AnalyticsOldPage.tsx').then((m) => ({ default: m.AnalyticsOldPage })),
);
const FinancePage = lazy(() =>
  import('../features/finance/FinancePage.tsx').then((m) => ({ default: m.FinancePage })),
);
const EncodingPage = lazy(() =>
  import('../features/encoding/EncodingPage.tsx').then((m) => ({ default: m.EncodingPage })),
);
const MediaSearchPage = lazy(() =>
  import('../features/media-search/MediaSearchPage.tsx').then((m) => ({ default: m.MediaSearchPage })),
);
const HybrikPage = lazy(() =>
  import('../features/hybrik/HybrikPage.tsx').then((m) => ({ default: m.HybrikPage })),
);
const LogsPage = lazy(() => import('../features/audit/LogsPage.tsx').then((m) => ({ default: m.LogsPage })));
const RequireOperator = lazy(() =>
  import('./RequireOperator.tsx').then((m) => ({ default: m.RequireOperator })),
);
const AccountsPage = lazy(() =>
  import('../features/admin/AccountsPage.tsx').then((m) => ({ default: m.AccountsPage })),
);
const AddNewAccountPage = lazy(() =>
  import('../features/admin/AddNewAccountPage.tsx').then((m) => ({ default: m.AddNewAccountPage })),
);
const UserListPage = lazy(() =>
  import('../features/admin/UserListPage.tsx').then((m) => ({ default: m.UserListPage })),
);
const AddNewUserPage = lazy(() =>
  import('../features/admin/AddNewUserPage.tsx').then((m) => ({ default: m.AddNewUserPage })),
);
const UsageDetailPage = lazy(() =>
  import('../features/admin/UsageDetailPage.tsx').then((m) => ({ default: m.UsageDetailPage })),
);
const TransferCostDetailPage = lazy(() =>
  import('../features/admin/TransferCostDetailPage.tsx').then((m) => ({ default: m.TransferCostDetailPage })),
);
const WasabiConfirmGate = lazy(() =>
  import('../features/billing/WasabiConfirmGate.tsx').then((m) => ({ default: m.WasabiConfirmGate })),
);

const ADMINS = ['Owner', 'Admin'] as const;

/** Every route of the three spec documents (002 §2 "Full route table" plus 000 §2 and 001 §2). */
export const appRoutes: RouteObject[] = [
  {
    element: <RootShell />,
    errorElement: <RouteErrorPage />,
    children: [
      // Public: reachable without a stored token.
      { path: 'login/:referrer_id?', element: <LoginPage /> },
      { path: 'oktalogin/:referrer_id?', element: <OktaLoginPage /> },
      { path: 'signup/:referrer_id?', element: <SignupPage /> },
      { path: 'register/:referrer_id?', element: <SignupPage /> },
      { path: 'postSignup', element: <PostSignupPage /> },
      { path: 'verify/:token?', element: <VerifyPage /> },
      { path: 'verifyemail', element: <VerifyEmailPage /> },
      { path: 'resetpassword/:token?', element: <ResetPasswordPage /> },
      { path: 'reset_password/:token?', element: <ResetPasswordPage /> },
      { path: 'desktop', element: <DesktopPage /> },
      { path: 'desktopbilling', element: <DesktopBillingPage /> },
      // A share link opens signed-out; /sharing too, where it explains share links (its route is below).
      { path: 'sharing/:token', element: <SharedLinkPage /> },
      {
        element: <RequireAuth />,
        children: [
          {
            element: <AppLayout />,
            children: [
              { index: true, element: <DashboardPage /> },
              { path: 'dashboard', element: <DashboardPage /> },
              { path: 'cloudproviders', element: <CloudProvidersPage /> },
              { path: 'addProvider/:provider?/:id?', element: <AddProviderPage /> },
              { path: 'onboard/:type', element: <OnboardPage /> },
              { path: 'addBucket/:provider?/:id?', element: <AddBucketPage /> },
              { path: 'setAlert/:id?/:name?', element: <AlertsPage /> },
              { path: 'cloud-compare/:id', element: <CloudComparePage /> },
              { path: 'browse', element: <BrowsePage /> },
              {
                // Public (spec 000 §2): signed out it explains share links and offers sign-in; signed in, the list.
                path: 'sharing',
                element: <SharesPage />,
                handle: { signedOut: <SharingIntroPage /> } satisfies SignedOutHandle,
              },
              // With ?sync (and /rboard) the Transfer Status page is its replication variant.
              { path: 'mboard', element: <TransferStatusPage /> },
              { path: 'rboard', element: <TransferStatusPage /> },
              { path: 'calc', element: <CostCalculatorPage /> },
              { path: 'migration', element: <MigrationPage /> },
              { path: 'c2c', element: <C2cTransferPage variant="c2c" /> },
              { path: 'ftx', element: <AgentTransferPage /> },
              // Paths match case-insensitively, so this is also /Sync.
              { path: 'sync', element: <SyncPage /> },
              { path: 'replication', element: <ReplicationPage /> },
              {
                path: 'S3Direct',
                element: (
                  <RequireDirectUploadAccess>
                    <DirectUploadPage variant="S3Direct" />
                  </RequireDirectUploadAccess>
                ),
              },
              {
                path: 'wasabi',
                element: (
                  <RequireWasabiAccess>
                    <WasabiConfirmGate>
                      <DirectUploadPage variant="wasabi" />
                    </WasabiConfirmGate>
                  </RequireWasabiAccess>
                ),
              },
              { path: 'encoding', element: <EncodingPage /> },
              {
                path: 'hybrik',
                element: (
                  <RequirePackage pkg="hybrik">
                    <HybrikPage />
                  </RequirePackage>
                ),
              },
              { path: 'transfers', element: <C2cTransferPage variant="transfers" /> },
              // Transfer Status over the migrations into Wasabi, and out of AWS (issue 28 §3).
              {
                path: 'wbrstatus',
                element: (
                  <TransferStatusPage
                    scope={{ title: 'Wasabi Migration Status', filter: { destination_provider: 'wasabi' } }}
                  />
                ),
              },
              {
                path: 'awstboard',
                element: (
                  <TransferStatusPage
                    scope={{ title: 'AWS Transfer Status', filter: { source_provider: 'aws' } }}
                  />
                ),
              },
              { path: 'prod2', element: <C2cTransferPage variant="prod2" /> },
              { path: 'prod3', element: <C2cTransferPage variant="prod3" /> },
              { path: 'wasabic2c', element: <C2cTransferPage variant="wasabic2c" /> },
              {
                path: 'analytics',
                element: (
                  <RequirePackage pkg="analytics">
                    <AnalyticsPage />
                  </RequirePackage>
                ),
              },
              {
                path: 'analytics-old',
                element: (
                  <RequirePackage pkg="analytics">
                    <AnalyticsOldPage />
                  </RequirePackage>
                ),
              },
              {
                path: 'finance',
                element: (
                  <RequirePackage pkg="finance">
                    <FinancePage />
                  </RequirePackage>
                ),
              },
              {
                path: 'mediasearch',
                element: (
                  <RequirePackage pkg="litemam">
                    <MediaSearchPage />
                  </RequirePackage>
                ),
              },
              { path: 'logs', element: <LogsPage /> },
              // The operator console (issue 28): this Cumulo's operators only.
              ...(
                [
                  ['userList', <UserListPage />],
                  ['usageDetail', <UsageDetailPage />],
                  ['transferCostDetail', <TransferCostDetailPage />],
                  ['admindaccount', <AccountsPage />],
                  ['addNewAccount', <AddNewAccountPage />],
                  ['addNewUser', <AddNewUserPage />],
                ] as const
              ).map(([path, page]) => ({ path, element: <RequireOperator>{page}</RequireOperator> })),
              {
                element: <SettingsLayout />,
                children: [
                  { path: 'profile', element: <ProfilePage /> },
                  { path: 'profile/edit', element: <EditProfilePage /> },
                  { path: 'profile/changepassword', element: <ChangePasswordPage /> },
                  { path: 'mfa', element: <MfaPage /> },
                  { path: 'billing', element: <BillingPage /> },
                  { path: 'billing/addcreditcard/:subscriptionId?', element: <AddCreditCardPage /> },
                  ...(
                    [
                      ['users', <UsersPage />],
                      ['users/invite', <InviteUsersPage />],
                      ['users/:id', <UserDetailPage />],
                    ] as const
                  ).map(([path, page]) => ({
                    path,
                    element: <RoleGate roles={ADMINS}>{page}</RoleGate>,
                  })),
                  {
                    path: 'roles',
                    element: (
                      <RoleGate roles={ADMINS}>
                        <RolesPage />
                      </RoleGate>
                    ),
                  },
                  { path: 'security-credentials', element: <AccessKeysPage /> },
                  { path: 'plan', element: <PlanPage /> },
                  { path: 'pricings', element: <PricingsPage /> },
                ],
              },
            ],
          },
        ],
      },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];
