export const WEB_INPUTS: string[];
export const WEB_RECORD: string;
export const SERVER_ENTRY: string;
export const SERVER_BUILD_INFO: string;
export function webInputsHash(root: string): string;
export function webBuildDecision(root: string): { build: boolean; reason: string; hash: string };
export function recordWebBuild(root: string, hash: string): void;
export function serverBuildDecision(root: string): { full: boolean; reason: string };
