/** The media type of every JSON answer the doors send, as fastify types the bodies it serialises. */
export const JSON_MEDIA_TYPE = "application/json; charset=utf-8";
