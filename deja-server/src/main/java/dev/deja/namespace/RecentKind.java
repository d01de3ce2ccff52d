package dev.deja.namespace;

import dev.deja.recent.RecentFilter;
import dev.deja.seen.HashedSeenSet;
import dev.deja.sizing.RecentSizing;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The {@code recent} kind: a {@link RecentFilter}, sized either by {@code buckets} or by retention ({@code keys}
 * later keys survived with probability {@code probability}, default 0.9), with {@code ways} (default 8) and
 * {@code owners} (default true, so check-then-add can answer RETRY).
 *
 * <p>The canonical parameters are the resolved shape ({@code buckets}, {@code ways}, {@code owners}).
 */
final class RecentKind implements SnapshotKind {

    private static final Set<String> KNOWN = Set.of("buckets", "keys", "probability", "ways", "owners");

    @Override
    public String name() {
        return "recent";
    }

    @Override
    public Map<String, String> parameters(Map<String, String> raw) {
        KindParameters.onlyKnown(name(), raw, KNOWN);
        int ways = (int) KindParameters.longValue(raw, "ways", 1, 16, RecentFilter.DEFAULT_WAYS);
        boolean owners = KindParameters.bool(raw, "owners", true);
        RecentFilter.Builder builder = RecentFilter.builder().ways(ways).owners(owners);
        if (raw.containsKey("buckets") == raw.containsKey("keys")) {
            throw new IllegalArgumentException("recent needs exactly one of buckets (total slots) or keys (how many"
                    + " later keys a key must survive, with probability 'probability', default 0.9)");
        }
        if (raw.containsKey("buckets") && raw.containsKey("probability")) {
            // ignoring it would size the store other than the caller asked
            throw new IllegalArgumentException("recent takes probability with keys, not with buckets: give keys and"
                    + " probability, or buckets alone");
        }
        if (raw.containsKey("buckets")) {
            builder.buckets(KindParameters.longValue(raw, "buckets", 1, Long.MAX_VALUE, 0));
        } else {
            builder.forRetention(
                    KindParameters.longValue(raw, "keys", 1, Long.MAX_VALUE, 0),
                    KindParameters.probability(raw, "probability", 0.9));
        }
        // the shape only: building the filter here would allocate all of its memory just to validate it
        Map<String, String> canonical = new LinkedHashMap<>();
        canonical.put("buckets", Long.toString(builder.resolvedBuckets()));
        canonical.put("ways", Integer.toString(ways));
        canonical.put("owners", Boolean.toString(owners));
        return canonical;
    }

    @Override
    public HashedSeenSet create(Map<String, String> parameters) {
        return RecentFilter.builder()
                .buckets(Long.parseLong(parameters.get("buckets")))
                .ways(Integer.parseInt(parameters.get("ways")))
                .owners(Boolean.parseBoolean(parameters.get("owners")))
                .build();
    }

    @Override
    public void writeSnapshot(HashedSeenSet store, OutputStream out) throws IOException {
        ((RecentFilter) store).writeTo(out);
    }

    @Override
    public HashedSeenSet readSnapshot(Map<String, String> parameters, InputStream in) throws IOException {
        RecentFilter filter = RecentFilter.readFrom(in);
        if (filter.buckets() != Long.parseLong(parameters.get("buckets"))
                || filter.ways() != Integer.parseInt(parameters.get("ways"))) {
            throw new IOException("snapshot holds a recent filter of buckets=" + filter.buckets() + ", ways="
                    + filter.ways() + " but the namespace is " + parameters);
        }
        return filter;
    }

    /** The buckets: a fingerprint each, and an owner each when owners are kept. */
    @Override
    public long memoryBytes(Map<String, String> parameters) {
        return Long.parseLong(parameters.get("buckets"))
                * RecentSizing.bytesPerBucket(Boolean.parseBoolean(parameters.get("owners")));
    }

    @Override
    public long capacity(Map<String, String> parameters) {
        return Long.parseLong(parameters.get("buckets"));
    }
}
