-- The exit-reason histogram of the KVM samples: counts, durations and
-- nearest-rank percentiles per reason and exit code, and the VMX and SVM
-- names of codes the source printed as numbers or UNKNOWN.
.output /dev/null
SELECT tracestore_attach('@WORK@/s.trace');
.output
SELECT reason, exit_code, vmx_name, svm_name, count, unpaired, total_dur,
       min_dur, max_dur, p50_dur, p90_dur, p99_dur
FROM kvm_exit_reasons ORDER BY reason, exit_code;
SELECT count(*) FROM kvm_exit_reasons
WHERE avg_dur IS NOT (total_dur * 1.0 / (count - unpaired));
SELECT reason, vmx_name, svm_name, p50_dur, p90_dur, p99_dur
FROM kvm_exit_reasons WHERE reason IN ('0x7b', '0x400', '0x78', '0x1e', '0x80000021')
ORDER BY reason;
