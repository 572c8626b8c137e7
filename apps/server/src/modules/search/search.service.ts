import type { MediaSearchAnswer, MediaSearchBody, MediaSearchResult } from '@cumulo/contract';
import { mediaSearchMessages } from '@cumulo/contract';
import type { Principal } from '../../authz/principal.ts';
import { requireService } from '../../authz/policy.ts';
import { requirePackage, type Entitlements } from '../billing/entitlements.ts';
import { searchSql } from './search-query.ts';
import type { SearchRepo, SearchRow } from './search.repo.ts';

/** POST /media/search (spec 001 §3 "Search request"): the caller's organisation's index, nothing else. */
export class SearchService {
  constructor(
    private readonly repo: SearchRepo,
    private readonly entitlements: Pick<Entitlements, 'may'>,
  ) {}

  async search(principal: Principal, body: MediaSearchBody): Promise<MediaSearchAnswer> {
    requireService(principal, 'media_search');
    await requirePackage(
      this.entitlements,
      principal.organizationId,
      'litemam',
      mediaSearchMessages.packageRequired,
    );
    const { where, relevance } = searchSql(principal.organizationId, body);
    const rows = await this.repo.search(where, relevance, body.config.limit);
    return { count: Number(rows[0]?.total ?? 0), results: rows.map(resultOf) };
  }
}

function resultOf(row: SearchRow): MediaSearchResult {
  return {
    name: row.name,
    bucket_name: row.bucket,
    cloud_account_id: row.cloud_account_id,
    path: row.prefix,
    key: row.key,
    project_name: row.project_name,
    metadata: {
      size: Number(row.size),
      content_type: row.content_type,
      last_modified: row.last_modified ? new Date(row.last_modified).toISOString() : null,
      user: row.user_metadata ?? {},
      custom: row.custom_metadata ?? {},
      media_info: row.media_info ?? {},
    },
    proxyUrl: null,
    selected: false,
  };
}
