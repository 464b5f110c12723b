#!/usr/bin/env python3
"""vs_projects.py: the Visual Studio solution (Tracer.sln) and its projects,
generated from and checked against the CMake targets.

    vs_projects.py generate SOURCE_DIR VS_TARGETS
    vs_projects.py check SOURCE_DIR VS_TARGETS [STUB_DIR]

VS_TARGETS is build-windows/vs-targets.txt (cmake/Windows.cmake writes it:
one "target<TAB>source" line per source of each CMake target, relative to
the source tree).  PROJECTS below maps each .vcxproj to the CMake targets it
builds.

generate writes Tracer.sln and the .vcxproj files (GUIDs are derived from
the project names, so regenerating changes nothing unless the sources did);
Tracer.props and TracerCore.props, which they import, are written by hand.

check fails (exit 1, each problem on a line) when:
  - a project's evaluated ClCompile items (xbuild with a stub VCTargetsPath
    whose Build target prints them, for Debug|x64 and Release|x64) are not
    exactly the sources of its CMake targets, either way round;
  - a file a project names (ClCompile, ClInclude, an imported .props) does
    not exist;
  - the solution names a project path that does not exist, or a GUID that is
    not that project's ProjectGuid, or lacks Debug|x64 / Release|x64 for it;
  - a ProjectReference's path or GUID does not resolve, or a dependency of
    a project (PROJECTS) is not referenced;
  - a core project lacks the CRT-free settings (TracerCore.props).
Without xbuild (mono-xbuild) the item check falls back to reading the XML.

Zone: tooling (tests), Python 3 standard library and xbuild.
"""
import os
import re
import subprocess
import sys
import tempfile
import uuid
import xml.etree.ElementTree as ET

NS = "http://schemas.microsoft.com/developer/msbuild/2003"
VC_PROJECT_TYPE = "8BC9CEB8-8B4A-11D0-8D11-00A0C91BC942"
CONFIGURATIONS = ["Debug|x64", "Release|x64"]

# name, path, CMake targets, configuration type, core (CRT-free), references
PROJECTS = [
    ("Rtl", "Rtl/Rtl.vcxproj", ["TracerRtl"], "StaticLibrary", True, []),
    ("TraceStore", "TraceStore/TraceStore.vcxproj", ["TracerStore"],
     "StaticLibrary", True, ["Rtl"]),
    ("Kernel", "Kernel/Kernel.vcxproj", ["TracerKernel"],
     "StaticLibrary", True, ["Rtl"]),
    ("Readers", "Readers/Readers.vcxproj", ["TracerReaders"],
     "StaticLibrary", True, ["TraceStore", "Kernel"]),
    ("Sqlite3Ext", "Sqlite3Ext/Sqlite3Ext.vcxproj", ["tracestore_ext"],
     "DynamicLibrary", False, ["TraceStore", "Kernel", "Rtl"]),
    ("Cli", "Cli/Cli.vcxproj",
     ["tracestore", "TracerSqlite3Amalgamation"], "Application", False,
     ["Readers", "TraceStore", "Kernel", "Rtl"]),
    ("WinCoreTest", "Tests/Windows/WinCoreTest.vcxproj",
     ["WinCoreTest", "TracerRtlCompilerSupport"], "Application", True,
     ["Readers", "TraceStore", "Kernel", "Rtl"]),
]

# Per-file settings CMake gives with set_source_files_properties.
FILE_DEFINITIONS = {"Host/HostText.c": "O_CLOEXEC=_O_BINARY"}

TARGET_NAMES = {"Sqlite3Ext": "tracestore", "Cli": "tracestore"}
ENTRY_POINTS = {"WinCoreTest": "WinCoreTestStart"}


def guid(name):
    return str(uuid.uuid5(uuid.NAMESPACE_URL,
                          "tracer/vs/" + name)).upper()


def win(path):
    return path.replace("/", "\\")


def read_targets(path):
    targets = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                target, source = line.rstrip("\n").split("\t")
                targets.setdefault(target, []).append(source)
    return targets


def project_sources(targets, project):
    """The sources of a project's CMake targets, relative to its folder
    (as a .vcxproj writes them), in CMake's order, without duplicates."""
    name, path, cmake_targets = project[0], project[1], project[2]
    folder = os.path.dirname(path)
    out = []
    for target in cmake_targets:
        if target not in targets:
            sys.exit("vs_projects.py: no CMake target %s in the targets "
                     "file" % target)
        for source in targets[target]:
            if not source.startswith("$("):
                source = os.path.relpath(source, folder)
            if source not in out:
                out.append(source)
    return out


def project_headers(source_dir, targets, project):
    """The headers beside a project's sources (the folders that hold them)."""
    folder = os.path.dirname(project[1])
    dirs = sorted({os.path.normpath(os.path.join(folder, os.path.dirname(s)))
                   for s in project_sources(targets, project)
                   if not s.startswith("$(")})
    out = []
    for d in dirs:
        for f in sorted(os.listdir(os.path.join(source_dir, d))):
            if f.endswith(".h"):
                out.append(os.path.relpath(os.path.join(d, f), folder))
    return out


def write_project(source_dir, targets, project):
    name, path, _, kind, core, refs = project
    folder = os.path.dirname(path)
    up = os.path.relpath(".", folder)
    by_name = {p[0]: p for p in PROJECTS}
    lines = ['<?xml version="1.0" encoding="utf-8"?>',
             '<!-- Generated by Tests/Windows/vs_projects.py from the CMake '
             'targets %s; regenerate, do not edit. -->' % ", ".join(project[2]),
             '<Project DefaultTargets="Build" ToolsVersion="15.0" '
             'xmlns="%s">' % NS,
             '  <ItemGroup Label="ProjectConfigurations">']
    for config in CONFIGURATIONS:
        c, p = config.split("|")
        lines += ['    <ProjectConfiguration Include="%s">' % config,
                  '      <Configuration>%s</Configuration>' % c,
                  '      <Platform>%s</Platform>' % p,
                  '    </ProjectConfiguration>']
    lines += ['  </ItemGroup>',
              '  <PropertyGroup Label="Globals">',
              '    <ProjectGuid>{%s}</ProjectGuid>' % guid(name),
              '    <RootNamespace>%s</RootNamespace>' % name,
              '  </PropertyGroup>',
              '  <Import Project="$(VCTargetsPath)\\Microsoft.Cpp.Default.props" />',
              '  <PropertyGroup Label="Configuration">',
              '    <ConfigurationType>%s</ConfigurationType>' % kind,
              '  </PropertyGroup>',
              '  <Import Project="%s" />' % win(os.path.join(up, "Tracer.props"))]
    if core:
        lines.append('  <Import Project="%s" />'
                     % win(os.path.join(up, "TracerCore.props")))
    lines.append('  <Import Project="$(VCTargetsPath)\\Microsoft.Cpp.props" />')
    if name in TARGET_NAMES:
        lines += ['  <PropertyGroup>',
                  '    <TargetName>%s</TargetName>' % TARGET_NAMES[name],
                  '  </PropertyGroup>']
    if name in ENTRY_POINTS:
        lines += ['  <ItemDefinitionGroup>', '    <Link>',
                  '      <EntryPointSymbol>%s</EntryPointSymbol>'
                  % ENTRY_POINTS[name], '    </Link>',
                  '  </ItemDefinitionGroup>']
    if name in ("Sqlite3Ext", "Cli"):
        defines = "__USE_MINGW_ANSI_STDIO=1"
        if name == "Cli":
            defines = "SQLITE_CORE=1;" + defines
        lines += ['  <ItemDefinitionGroup>', '    <ClCompile>',
                  '      <PreprocessorDefinitions>%s;%%(PreprocessorDefinitions)'
                  '</PreprocessorDefinitions>' % defines,
                  '    </ClCompile>', '  </ItemDefinitionGroup>']
    lines.append('  <ItemGroup>')
    for source in project_sources(targets, project):
        rooted = os.path.normpath(os.path.join(folder, source))
        if rooted in FILE_DEFINITIONS:
            lines += ['    <ClCompile Include="%s">' % win(source),
                      '      <PreprocessorDefinitions>%s;%%(PreprocessorDefinitions)'
                      '</PreprocessorDefinitions>' % FILE_DEFINITIONS[rooted],
                      '    </ClCompile>']
        else:
            lines.append('    <ClCompile Include="%s" />' % win(source))
    lines += ['  </ItemGroup>', '  <ItemGroup>']
    for header in project_headers(source_dir, targets, project):
        lines.append('    <ClInclude Include="%s" />' % win(header))
    lines += ['  </ItemGroup>', '  <ItemGroup>']
    for ref in refs:
        ref_path = os.path.relpath(by_name[ref][1], folder)
        lines += ['    <ProjectReference Include="%s">' % win(ref_path),
                  '      <Project>{%s}</Project>' % guid(ref),
                  '    </ProjectReference>']
    lines += ['  </ItemGroup>',
              '  <Import Project="$(VCTargetsPath)\\Microsoft.Cpp.targets" />',
              '</Project>', '']
    with open(os.path.join(source_dir, path), "w", newline="\r\n") as f:
        f.write("\n".join(lines))


def write_solution(source_dir):
    by_name = {p[0]: p for p in PROJECTS}
    lines = ["", "Microsoft Visual Studio Solution File, Format Version 12.00",
             "# Visual Studio Version 17",
             "VisualStudioVersion = 17.0.31903.59",
             "MinimumVisualStudioVersion = 10.0.40219.1"]
    for name, path, _, _, _, refs in PROJECTS:
        lines.append('Project("{%s}") = "%s", "%s", "{%s}"'
                     % (VC_PROJECT_TYPE, name, win(path), guid(name)))
        if refs:
            lines.append("\tProjectSection(ProjectDependencies) = postProject")
            for ref in refs:
                lines.append("\t\t{%s} = {%s}" % (guid(ref), guid(ref)))
            lines.append("\tEndProjectSection")
        lines.append("EndProject")
    items = guid("Solution Items")
    lines += ['Project("{2150E333-8FDC-42A3-9474-1A3956D46DE8}") = '
              '"Solution Items", "Solution Items", "{%s}"' % items,
              "\tProjectSection(SolutionItems) = preProject",
              "\t\tTracer.props = Tracer.props",
              "\t\tTracerCore.props = TracerCore.props",
              "\tEndProjectSection", "EndProject", "Global",
              "\tGlobalSection(SolutionConfigurationPlatforms) = preSolution"]
    for config in CONFIGURATIONS:
        lines.append("\t\t%s = %s" % (config, config))
    lines += ["\tEndGlobalSection",
              "\tGlobalSection(ProjectConfigurationPlatforms) = postSolution"]
    for name in by_name:
        for config in CONFIGURATIONS:
            lines.append("\t\t{%s}.%s.ActiveCfg = %s" % (guid(name), config,
                                                         config))
            lines.append("\t\t{%s}.%s.Build.0 = %s" % (guid(name), config,
                                                       config))
    lines += ["\tEndGlobalSection",
              "\tGlobalSection(SolutionProperties) = preSolution",
              "\t\tHideSolutionNode = FALSE", "\tEndGlobalSection",
              "EndGlobal", ""]
    with open(os.path.join(source_dir, "Tracer.sln"), "w",
              newline="\r\n", encoding="utf-8-sig") as f:
        f.write("\n".join(lines))


def xbuild_sources(source_dir, path, config, stub):
    c, p = config.split("|")
    run = subprocess.run(["xbuild", "/nologo", "/v:minimal",
                          "/p:VCTargetsPath=%s/" % stub,
                          "/p:Configuration=%s" % c, "/p:Platform=%s" % p,
                          # A marker, turned back into $(TracerSqliteDir).
                          "/p:TracerSqliteDir=TRACER_SQLITE_DIR",
                          os.path.join(source_dir, path)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    for line in run.stdout.splitlines():
        m = re.search(r"TRACER-SOURCES (\S+): (.*)$", line)
        if m:
            items = [s.replace("TRACER_SQLITE_DIR", "$(TracerSqliteDir)")
                     for s in m.group(2).split(";") if s]
            return run.returncode, items, m.group(1), run.stdout
    return run.returncode, None, None, run.stdout


def make_stub(directory):
    empty = ('<Project xmlns="%s"><PropertyGroup><TracerStub>true'
             '</TracerStub></PropertyGroup></Project>\n' % NS)
    for f in ("Microsoft.Cpp.Default.props", "Microsoft.Cpp.props"):
        with open(os.path.join(directory, f), "w") as out:
            out.write(empty)
    with open(os.path.join(directory, "Microsoft.Cpp.targets"), "w") as out:
        out.write('<Project xmlns="%s"><Target Name="Build"><Message '
                  'Importance="high" Text="TRACER-SOURCES '
                  '$(ConfigurationType): @(ClCompile)" /></Target>'
                  '</Project>\n' % NS)


def check(source_dir, targets, stub):
    problems = []
    have_xbuild = subprocess.run(["sh", "-c", "command -v xbuild"],
                                 stdout=subprocess.DEVNULL).returncode == 0
    by_name = {p[0]: p for p in PROJECTS}
    guids = {}
    for project in PROJECTS:
        name, path, _, kind, core, refs = project
        full = os.path.join(source_dir, path)
        folder = os.path.dirname(full)
        if not os.path.exists(full):
            problems.append("%s: missing (vs_projects.py generate)" % path)
            continue
        try:
            root = ET.parse(full).getroot()
        except ET.ParseError as e:
            problems.append("%s: not well-formed XML: %s" % (path, e))
            continue
        g = root.find(".//{%s}ProjectGuid" % NS)
        guids[name] = g.text.strip("{}").upper() if g is not None else None
        expected = sorted(os.path.normpath(s) if not s.startswith("$(")
                          else s for s in project_sources(targets, project))
        for imp in root.iter("{%s}Import" % NS):
            p = imp.get("Project")
            if "$(" not in p and not os.path.exists(
                    os.path.join(folder, p.replace("\\", "/"))):
                problems.append("%s: imports %s, which does not exist"
                                % (path, p))
        if core and not any(i.get("Project").endswith("TracerCore.props")
                            for i in root.iter("{%s}Import" % NS)):
            problems.append("%s: a core project without TracerCore.props "
                            "(CRT-free settings)" % path)
        for tag in ("ClCompile", "ClInclude"):
            for item in root.iter("{%s}%s" % (NS, tag)):
                inc = item.get("Include")
                if inc and "$(" not in inc and not os.path.exists(
                        os.path.join(folder, inc.replace("\\", "/"))):
                    problems.append("%s: %s %s does not exist"
                                    % (path, tag, inc))
        for config in CONFIGURATIONS:
            if have_xbuild:
                rc, items, ctype, log = xbuild_sources(source_dir, path,
                                                       config, stub)
                if items is None or rc != 0:
                    problems.append("%s %s: xbuild could not evaluate it:\n%s"
                                    % (path, config, log[-2000:]))
                    continue
                if ctype != kind:
                    problems.append("%s %s: ConfigurationType %s, expected %s"
                                    % (path, config, ctype, kind))
            else:
                items = [i.get("Include") for i in
                         root.iter("{%s}ClCompile" % NS) if i.get("Include")]
            found = sorted(os.path.normpath(i.replace("\\", "/"))
                           if not i.startswith("$(") else i for i in items)
            for s in sorted(set(expected) - set(found)):
                problems.append("%s %s: %s is in CMake target(s) %s but not "
                                "in the project" % (path, config, s,
                                                    "/".join(project[2])))
            for s in sorted(set(found) - set(expected)):
                problems.append("%s %s: %s is in the project but in no CMake "
                                "target of it" % (path, config, s))
        refs_found = {}
        for ref in root.iter("{%s}ProjectReference" % NS):
            ref_path = os.path.normpath(os.path.join(
                os.path.dirname(path), ref.get("Include").replace("\\", "/")))
            ref_guid = ref.find("{%s}Project" % NS)
            refs_found[ref_path] = (ref_guid.text.strip("{}").upper()
                                    if ref_guid is not None else None)
        for ref in refs:
            if by_name[ref][1] not in refs_found:
                problems.append("%s: does not reference %s" % (path, ref))
        for ref_path, ref_guid in refs_found.items():
            target = [p for p in PROJECTS if p[1] == ref_path]
            if not os.path.exists(os.path.join(source_dir, ref_path)):
                problems.append("%s: references %s, which does not exist"
                                % (path, ref_path))
            elif target and ref_guid != guid(target[0][0]):
                problems.append("%s: references %s as {%s}, whose GUID is "
                                "{%s}" % (path, ref_path, ref_guid,
                                          guid(target[0][0])))
    problems += check_solution(source_dir)
    return problems


def check_solution(source_dir):
    problems = []
    sln = os.path.join(source_dir, "Tracer.sln")
    if not os.path.exists(sln):
        return ["Tracer.sln: missing (vs_projects.py generate)"]
    text = open(sln, encoding="utf-8-sig").read()
    declared = re.findall(r'Project\("\{([0-9A-F-]+)\}"\) = "([^"]+)", '
                          r'"([^"]+)", "\{([0-9A-F-]+)\}"', text)
    projects = {}
    for type_guid, name, path, project_guid in declared:
        if type_guid != VC_PROJECT_TYPE:
            continue
        full = os.path.join(source_dir, path.replace("\\", "/"))
        if not os.path.exists(full):
            problems.append("Tracer.sln: %s at %s: no such file"
                            % (name, path))
            continue
        g = ET.parse(full).getroot().find(".//{%s}ProjectGuid" % NS)
        actual = g.text.strip("{}").upper() if g is not None else None
        if actual != project_guid:
            problems.append("Tracer.sln: %s is {%s} but %s says {%s}"
                            % (name, project_guid, path, actual))
        projects[project_guid] = name
    for p in PROJECTS:
        if guid(p[0]) not in projects:
            problems.append("Tracer.sln: project %s (%s) missing"
                            % (p[0], p[1]))
    for project_guid, name in projects.items():
        for config in CONFIGURATIONS:
            for what in ("ActiveCfg", "Build.0"):
                if "{%s}.%s.%s = %s" % (project_guid, config, what,
                                        config) not in text:
                    problems.append("Tracer.sln: %s has no %s %s"
                                    % (name, config, what))
    for dep in re.findall(r"\t\t\{([0-9A-F-]+)\} = \{([0-9A-F-]+)\}", text):
        if dep[0] not in projects:
            problems.append("Tracer.sln: a dependency on {%s}, which is no "
                            "project" % dep[0])
    return problems


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("generate", "check"):
        sys.exit(__doc__)
    source_dir, targets = sys.argv[2], read_targets(sys.argv[3])
    if sys.argv[1] == "generate":
        for project in PROJECTS:
            write_project(source_dir, targets, project)
        write_solution(source_dir)
        return 0
    with tempfile.TemporaryDirectory() as stub:
        make_stub(stub)
        problems = check(source_dir, targets, stub)
    for p in problems:
        print(p)
    if problems:
        print("%d problem(s); if the CMake targets changed, run: "
              "Tests/Windows/vs_projects.py generate . "
              "build-windows/vs-targets.txt" % len(problems))
        return 1
    print("Tracer.sln: %d projects, Debug|x64 and Release|x64, sources equal "
          "to the CMake targets'" % len(PROJECTS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
