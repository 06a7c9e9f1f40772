import path from 'node:path';

/**
 * The configuration files of the test's high-availability PostgreSQL (ha-cluster.ts), as
 * docs/deployment.md recommends it, with timings short enough for a test: the leader key lives
 * 10 s (Patroni's default is 30 s), Patroni looks every second, HAProxy asks every half second.
 */
const LEADER_TTL_SECONDS = 10;

export type NodeSpec = { name: string; pgPort: number; apiPort: number; dataDir: string };

export function patroniConfig(
  node: NodeSpec,
  { dir, etcdPort, binDir }: { dir: string; etcdPort: number; binDir: string },
): string {
  // JSON is YAML: no YAML writer needed.
  return JSON.stringify({
    scope: 'beckon-test',
    name: node.name,
    log: { level: 'WARNING' },
    restapi: { listen: `127.0.0.1:${node.apiPort}`, connect_address: `127.0.0.1:${node.apiPort}` },
    etcd3: { hosts: `127.0.0.1:${etcdPort}` },
    bootstrap: {
      dcs: {
        ttl: LEADER_TTL_SECONDS,
        loop_wait: 1,
        retry_timeout: 3,
        maximum_lag_on_failover: 1048576,
        // A commit is acknowledged once the synchronous standby has it: a failover loses none.
        synchronous_mode: true,
        postgresql: {
          use_pg_rewind: false,
          parameters: {
            max_connections: 100,
            shared_buffers: '32MB',
            wal_keep_size: '64MB',
            max_wal_senders: 5,
            max_replication_slots: 5,
          },
        },
      },
      initdb: [{ encoding: 'UTF8' }, 'no-sync'],
      pg_hba: [
        'local all all trust',
        'host replication replicator 127.0.0.1/32 trust',
        'host all all 127.0.0.1/32 trust',
      ],
    },
    postgresql: {
      listen: `127.0.0.1:${node.pgPort}`,
      connect_address: `127.0.0.1:${node.pgPort}`,
      data_dir: node.dataDir,
      bin_dir: binDir,
      pgpass: path.join(dir, `${node.name}.pgpass`),
      authentication: {
        superuser: { username: 'postgres', password: 'postgres' },
        replication: { username: 'replicator', password: 'replicator' },
      },
      parameters: { unix_socket_directories: dir },
    },
  });
}

export function haproxyConfig(port: number, nodes: NodeSpec[]): string {
  return [
    'global',
    '  maxconn 400',
    'defaults',
    '  mode tcp',
    '  timeout connect 2s',
    '  timeout client 1h',
    '  timeout server 1h',
    '  timeout check 1s',
    'listen primary',
    `  bind 127.0.0.1:${port}`,
    '  option httpchk OPTIONS /primary',
    '  http-check expect status 200',
    // A node that stops being the primary has its connections cut, so none stays on a replica.
    '  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions',
    ...nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.pgPort} maxconn 100 check port ${n.apiPort}`),
    '',
  ].join('\n');
}
