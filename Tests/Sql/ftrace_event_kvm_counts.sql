-- kvm events other than kvm_exit/kvm_entry (which pair into the kvm_exit
-- store) are in ftrace_event, by name.
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT name, count(*) FROM ftrace_event WHERE name GLOB 'kvm_*'
 GROUP BY name ORDER BY name;
