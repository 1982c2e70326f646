export const QUEUE_PATH = '/workspace/queue';

export const queueThreadPath = (conversationId: string) => `${QUEUE_PATH}/${encodeURIComponent(conversationId)}`;
