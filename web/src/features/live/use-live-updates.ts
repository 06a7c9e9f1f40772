import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { Item } from '../../lib/trpc';
import { authTrpc } from '../../lib/trpc';
import { applyItem } from '../items/item-cache';

export type LiveStatus = 'connecting' | 'live' | 'offline';

type Message = { type: string; item?: Item | null; error?: string };

const socketUrl = () =>
  `${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}/api/ws`;

/**
 * `/api/ws` (decisions.md §5): the token goes in the first message, then every item event of the
 * organization patches the cached queries. On reconnect, what may have been missed is refetched.
 */
export function useLiveUpdates(token: string | null): LiveStatus {
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<LiveStatus>('connecting');
  useEffect(() => {
    if (!token) return;
    let socket: WebSocket | undefined;
    let stopped = false;
    let attempts = 0;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let connectedOnce = false;

    const connect = () => {
      setStatus('connecting');
      socket = new WebSocket(socketUrl());
      socket.onopen = () => socket?.send(JSON.stringify({ type: 'auth', token }));
      socket.onmessage = (event) => {
        let message: Message;
        try {
          message = JSON.parse(String(event.data)) as Message;
        } catch {
          return;
        }
        if (message.type === 'ready') {
          attempts = 0;
          setStatus('live');
          // Events between the first fetch (or the last connection) and now were not received.
          if (connectedOnce) void queryClient.invalidateQueries();
          connectedOnce = true;
        } else if (message.type.startsWith('item.') && message.item) {
          applyItem(queryClient, message.item, message.type);
        }
      };
      socket.onclose = (event) => {
        if (stopped) return;
        setStatus('offline');
        // 4401: the session is no longer valid; asking the account API signs out if so.
        if (event.code === 4401)
          void queryClient.invalidateQueries({ queryKey: authTrpc.accounts.me.queryKey() });
        const delay = Math.min(30_000, 1000 * 2 ** attempts) * (0.5 + Math.random() / 2);
        attempts += 1;
        retry = setTimeout(connect, delay);
      };
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      socket?.close();
    };
  }, [token, queryClient]);
  return status;
}
