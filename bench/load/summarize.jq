# summarize.jq — the load benchmark's JSON (bench/load/run.sh, bench/load/replicas.sh): every run of
# drive.mjs (slurped, jq -s) reduced to the median, min and max of throughput and p99, the error
# total, the RSS and descriptor figures per pid, whether the driver was the limit, and the sampled
# series. $command names the command that made it.
def median: sort | if length % 2 == 1 then .[length / 2 | floor]
                   else (.[length / 2 - 1] + .[length / 2]) / 2 end;
{
  command: $command,
  url: .[0].url, protocol: .[0].protocol,
  clients: .[0].clients, total: .[0].total, repeat: length,
  errors: (map(.errors) | add),
  first_errors: (map(.first_errors[]) | unique | .[0:5]),
  calls_per_second: { median: (map(.calls_per_second) | median),
                      min: (map(.calls_per_second) | min), max: (map(.calls_per_second) | max) },
  p99_ms: { median: (map(.p99_ms) | median), min: (map(.p99_ms) | min), max: (map(.p99_ms) | max) },
  p50_ms: { median: (map(.p50_ms) | median), min: (map(.p50_ms) | min), max: (map(.p50_ms) | max) },
  p99_by_kind_ms: map(.by_kind | map_values(.p99_ms)),
  rss_growth_kib_after_warmup: (map(.resources[] | .rss_growth_kib)),
  rss_kib_after_warmup: (map(.resources[] | .rss_kib_after_warmup)),
  rss_max_kib: (map(.resources[] | .rss_max_kib)),
  fds: (map(.resources[] | {start: .fds_start, max: .fds_max, end: .fds_end})),
  driver_cpu_cores: (map(.driver_cpu_cores)),
  driver_is_the_limit: (map(.driver_is_the_limit) | any),
  sample_columns: "[t_s, then rss_kib and fds per pid]",
  runs: map(.samples |= map([.t_s] + (.per_pid | map(.rss_kib, .fds)) | tojson))
}
