package io.hippograph.launcher;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.connectors.HttpsConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.server.configuration.ConfigurableServerModules;
import org.neo4j.server.configuration.ServerSettings;

/**
 * Runs an embedded Neo4j Community DBMS with Bolt on a loopback address.
 *
 * <p>Arguments: --home DIR --port N [--host H] [--password-file F] [--pagecache BYTES]
 * [--tx-max BYTES] [--parent-pid PID] [--http-port N [--browser-post-connect CMDS]]. Prints one readiness
 * line, "HIPPOGRAPH_NEO4J_READY bolt://host:port", once Bolt accepts authenticated sessions; shuts the DBMS
 * down cleanly on SIGTERM, and — with
 * --parent-pid — when that process is gone (a test run or benchmark killed mid-way leaves no
 * server behind).
 *
 * <p>With --http-port the HTTP connector listens on the same loopback host and serves Neo4j Browser at
 * /browser/ (Browser's static files must be on the classpath under "browser/"; they talk Bolt over a
 * WebSocket to the Bolt port). Without it HTTP stays off, as it always was.
 */
public final class Launcher {
    private Launcher() {}

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = parse(argv);
        Path home = Path.of(require(args, "home")).toAbsolutePath();
        String host = args.getOrDefault("host", "127.0.0.1");
        int port = Integer.parseInt(require(args, "port"));
        long pagecache = Long.parseLong(args.getOrDefault("pagecache", String.valueOf(256L << 20)));
        long txMax = Long.parseLong(args.getOrDefault("tx-max", String.valueOf(384L << 20)));
        String password = null;
        if (args.containsKey("password-file")) {
            password = Files.readString(Path.of(args.get("password-file")), StandardCharsets.UTF_8).strip();
            if (password.length() < 8) {
                throw new IllegalArgumentException("password must have at least 8 characters");
            }
        }

        Files.createDirectories(home);
        Path conf = home.resolve("launcher.conf");
        Files.writeString(conf, String.join("\n",
                "db.tx_log.preallocate=false",
                "dbms.usage_report.enabled=false",
                "db.tx_log.rotation.retention_policy=2 files",
                ""), StandardCharsets.UTF_8);

        DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(home)
                .loadPropertiesFromFile(conf)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress(host, port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress(host, port))
                .setConfig(HttpConnector.enabled, false)
                .setConfig(HttpsConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, password != null)
                .setConfig(GraphDatabaseSettings.pagecache_memory, pagecache)
                .setConfig(GraphDatabaseSettings.memory_transaction_global_max_size, txMax);
        String browserUrl = null;
        if (args.containsKey("http-port")) {
            int httpPort = Integer.parseInt(args.get("http-port"));
            builder.setConfig(HttpConnector.enabled, true)
                    .setConfig(HttpConnector.listen_address, new SocketAddress(host, httpPort))
                    .setConfig(HttpConnector.advertised_address, new SocketAddress(host, httpPort))
                    .setConfig(ServerSettings.http_enabled_modules, EnumSet.of(
                            ConfigurableServerModules.BROWSER, ConfigurableServerModules.TRANSACTIONAL_ENDPOINTS))
                    // Browser fetches guides and styles only from hosts on this list (host names, no ports).
                    .setConfig(ServerSettings.browser_remote_content_hostname_whitelist, host)
                    .setConfig(ServerSettings.browser_post_connect_cmd, args.getOrDefault("browser-post-connect", ""));
            browserUrl = "http://" + host + ":" + httpPort + "/browser/";
        }
        DatabaseManagementService dbms = builder.build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("HIPPOGRAPH_NEO4J_STOPPING");
            dbms.shutdown();
            stopped.countDown();
        }, "hippograph-shutdown"));

        if (args.containsKey("parent-pid")) {
            long parent = Long.parseLong(args.get("parent-pid"));
            Thread watchdog = new Thread(() -> {
                while (ProcessHandle.of(parent).map(ProcessHandle::isAlive).orElse(false)) {
                    try {
                        Thread.sleep(1000);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                System.out.println("HIPPOGRAPH_NEO4J_PARENT_GONE");
                System.exit(0);
            }, "hippograph-parent-watchdog");
            watchdog.setDaemon(true);
            watchdog.start();
        }
        if (password != null) {
            setInitialPassword(dbms.database("system"), password);
        }
        dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME).executeTransactionally("RETURN 1");
        if (browserUrl != null) {
            System.out.println("HIPPOGRAPH_NEO4J_BROWSER " + browserUrl);
        }
        System.out.println("HIPPOGRAPH_NEO4J_READY bolt://" + host + ":" + port);
        System.out.flush();
        stopped.await();
    }

    /** Sets the neo4j user's password once: only while the server still demands a change. */
    private static void setInitialPassword(GraphDatabaseService system, String password) {
        boolean changeRequired;
        try (Transaction tx = system.beginTx();
             Result result = tx.execute(
                     "SHOW USERS YIELD user, passwordChangeRequired "
                             + "WHERE user = 'neo4j' RETURN passwordChangeRequired")) {
            changeRequired = result.hasNext() && Boolean.TRUE.equals(result.next().get("passwordChangeRequired"));
            tx.commit();
        }
        if (changeRequired) {
            system.executeTransactionally(
                    "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", password));
        }
    }

    private static Map<String, String> parse(String[] argv) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < argv.length; i++) {
            String key = argv[i];
            if (!key.startsWith("--") || i + 1 >= argv.length) {
                throw new IllegalArgumentException("expected --name value pairs, got: " + key);
            }
            out.put(key.substring(2), argv[++i]);
        }
        return out;
    }

    private static String require(Map<String, String> args, String name) {
        String value = args.get(name);
        if (value == null) {
            throw new IllegalArgumentException("missing --" + name);
        }
        return value;
    }
}
