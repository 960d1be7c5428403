import type { UploadHold } from '../domain/assets/upload.js';
import { ApiError } from './api-error.js';

const RETRY_AFTER_SECONDS = '5';

/**
 * The bytes uploads in progress hold, bounded over the server and per tenant: an upload is held in
 * memory until it is stored whole, so without a bound many slow ones (or one client's many)
 * could take the process's memory. An upload is refused at once, before its bytes are read, when
 * its Content-Length (or, without one, its next chunk) would pass a bound; one upload with
 * nothing else in progress always proceeds, so a bound under the largest upload still lets one
 * through at a time. The refusal closes the connection: the client is not left sending bytes
 * that are only read to be dropped.
 */
export class UploadMemory {
  private total = 0;
  private readonly perTenant = new Map<string, number>();

  constructor(
    readonly limit: number,
    readonly tenantLimit: number,
    private readonly settings: { server: string; tenant: string },
  ) {}

  open(tenantId: string): UploadHold {
    let held = 0;
    return {
      cover: (total) => {
        if (total <= held) return;
        this.take(tenantId, total - held, held);
        held = total;
      },
      release: () => {
        this.give(tenantId, held);
        held = 0;
      },
    };
  }

  private take(tenantId: string, bytes: number, alreadyHeld: number): void {
    const tenant = this.perTenant.get(tenantId) ?? 0;
    const headers = { 'retry-after': RETRY_AFTER_SECONDS, connection: 'close' };
    if (tenant > alreadyHeld && tenant + bytes > this.tenantLimit) {
      throw new ApiError(429, 'too_many_uploads', `this tenant's uploads in progress already hold ${tenant} bytes, and this one would pass the bound of ${this.tenantLimit} (${this.settings.tenant}): retry once one has finished`, {}, headers);
    }
    if (this.total > alreadyHeld && this.total + bytes > this.limit) {
      throw new ApiError(503, 'uploads_busy', `uploads in progress already hold ${this.total} bytes of this server's memory, and this one would pass the bound of ${this.limit} (${this.settings.server}): retry in a few seconds`, {}, headers);
    }
    this.total += bytes;
    this.perTenant.set(tenantId, tenant + bytes);
  }

  private give(tenantId: string, bytes: number): void {
    if (bytes === 0) return;
    this.total -= bytes;
    const left = (this.perTenant.get(tenantId) ?? 0) - bytes;
    if (left > 0) this.perTenant.set(tenantId, left);
    else this.perTenant.delete(tenantId);
  }
}
