// The public GraphQL API: queries and mutations over HTTP POST /graphql with the key as a
// bearer token; subscriptions over the same path's websocket (graphql-transport-ws).

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(code ? `${message} (${code})` : message);
  }
}

interface GraphQLError {
  message: string;
  extensions?: { code?: string };
}

export type Variables = Record<string, unknown>;

export class Api {
  constructor(readonly key: string) {}

  async query<T>(query: string, variables: Variables = {}): Promise<T> {
    const response = await fetch("/graphql", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${this.key}` },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json().catch(() => null)) as { data?: T; errors?: GraphQLError[]; error?: GraphQLError } | null;
    if (body?.errors?.length) throw new ApiError(body.errors[0].message, body.errors[0].extensions?.code);
    if (!response.ok || !body?.data) throw new ApiError(body?.error?.message ?? `HTTP ${response.status}`, undefined);
    return body.data;
  }

  /** Runs one subscription; calls `onNext` per event, resolves when the server completes it. */
  subscribe<T>(query: string, variables: Variables, onNext: (data: T) => void): { done: Promise<void>; close: () => void } {
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/graphql`;
    const socket = new WebSocket(url, "graphql-transport-ws");
    const done = new Promise<void>((resolve, reject) => {
      socket.onopen = () =>
        socket.send(JSON.stringify({ type: "connection_init", payload: { authorization: `Bearer ${this.key}` } }));
      socket.onmessage = (event: MessageEvent<string>) => {
        const message = JSON.parse(event.data) as { type: string; payload?: unknown };
        if (message.type === "connection_ack") {
          socket.send(JSON.stringify({ id: "1", type: "subscribe", payload: { query, variables } }));
        } else if (message.type === "next") {
          const payload = message.payload as { data?: T; errors?: GraphQLError[] };
          if (payload.errors?.length) reject(new ApiError(payload.errors[0].message, payload.errors[0].extensions?.code));
          else if (payload.data) onNext(payload.data);
        } else if (message.type === "error") {
          const errors = message.payload as GraphQLError[];
          reject(new ApiError(errors[0]?.message ?? "subscription refused", errors[0]?.extensions?.code));
        } else if (message.type === "complete") {
          resolve();
          socket.close(1000);
        } else if (message.type === "ping") {
          socket.send(JSON.stringify({ type: "pong" }));
        }
      };
      socket.onclose = (event) => {
        if (event.code !== 1000) reject(new ApiError(event.reason || `the socket closed (${event.code})`, undefined));
        resolve();
      };
    });
    return { done, close: () => socket.close(1000) };
  }
}
