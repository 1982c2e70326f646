import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../../platform/clock/clock.js';
import { APP_CONFIG } from '../../platform/config/config.token.js';
import type { AppConfig } from '../../platform/config/config.js';
import { LinkSigner } from '../../platform/crypto/link-signer.js';

/** How long a download link of an artifact works. */
export const ARTIFACT_LINK_TTL_S = 15 * 60;

export type LinkCheck = 'ok' | 'forged' | 'expired';

/** The path of an artifact's download route (on the service's own origin). */
export function artifactPath(orgId: string, conversationId: string, artifactId: string): string {
  return `/api/orgs/${orgId}/conversations/${conversationId}/artifacts/${artifactId}`;
}

/**
 * Signed, expiring download links of a conversation's artifacts. A link is its own credential (an
 * `<img>` cannot send a token), so only a view made for a caller who may read the thread carries
 * one: HMAC-SHA-256 over the org, the conversation, the artifact and the expiry, with a key derived
 * from ENCRYPTION_KEY for this purpose alone.
 */
@Injectable()
export class ArtifactLinks {
  private readonly signer: LinkSigner;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.signer = new LinkSigner('conversation-artifact', config.keys.encryptionKey, config.keys.previousEncryptionKeys);
  }

  /**
   * A link valid for ARTIFACT_LINK_TTL_S (less the seconds past the minute: the expiry is a whole
   * minute, so a thread read twice in a minute names the same link and the browser's cache keeps
   * the thumbnail).
   */
  url(orgId: string, conversationId: string, artifactId: string): string {
    const expires = Math.floor(this.clock.now().getTime() / 60_000) * 60 + ARTIFACT_LINK_TTL_S;
    const sig = this.signer.sign([orgId, conversationId, artifactId], expires);
    return `${artifactPath(orgId, conversationId, artifactId)}?expires=${expires}&sig=${sig}`;
  }

  /** Whether a presented link is one of ours for this artifact, and still in its lifetime. */
  check(orgId: string, conversationId: string, artifactId: string, expires: string | undefined, sig: string | undefined): LinkCheck {
    if (!expires || !/^\d{1,12}$/.test(expires) || !sig || !/^[0-9a-f]{64}$/.test(sig)) return 'forged';
    const at = Number(expires);
    if (!this.signer.verify([orgId, conversationId, artifactId], at, sig)) return 'forged';
    return at * 1000 <= this.clock.now().getTime() ? 'expired' : 'ok';
  }
}
