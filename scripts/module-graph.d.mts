export const START: string;
export const END: string;
export const ARCHITECTURE_DOC: string;
export function moduleEdges(root: string): { modules: string[]; edges: string[] };
export function moduleGraph(root: string): string;
export function withGraph(doc: string, graph: string): string;
