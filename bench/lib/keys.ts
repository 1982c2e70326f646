import { exportPKCS8, exportSPKI, generateKeyPair } from 'jose';

export interface PemKeyPair {
  privateKeyPem: string;
  publicKeyPem: string;
}

/** A fresh RS256 key pair for this run, as PKCS#8 (private) and SPKI (public) PEM. */
export async function generateRs256Pem(): Promise<PemKeyPair> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return {
    privateKeyPem: await exportPKCS8(privateKey),
    publicKeyPem: await exportSPKI(publicKey),
  };
}
