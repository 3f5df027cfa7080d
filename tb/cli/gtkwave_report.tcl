# Run by GTKWave (gtkwave -S gtkwave_report.tcl FILE.gtkw) for the CLI test
# gtkwave_opens_the_save_file: writes what GTKWave shows after loading the
# save file to $SMSHARE_GTKWAVE_REPORT, then quits.
#   window START END       the time range drawn
#   range MIN MAX          the dump's first and last time
#   signal NAME            each displayed signal, top to bottom
#   value NAME TEXT        NAME's text at time $SMSHARE_GTKWAVE_MARKER (translated)
set out [open $::env(SMSHARE_GTKWAVE_REPORT) w]
puts $out "window [gtkwave::getWindowStartTime] [gtkwave::getWindowEndTime]"
puts $out "range [gtkwave::getMinTime] [gtkwave::getMaxTime]"
foreach name [gtkwave::getDisplayedSignals] { puts $out "signal $name" }
gtkwave::setMarker $::env(SMSHARE_GTKWAVE_MARKER)
set probe $::env(SMSHARE_GTKWAVE_PROBE)
puts $out "value $probe [gtkwave::getTraceValueAtMarkerFromName $probe]"
close $out
gtkwave::/File/Quit
