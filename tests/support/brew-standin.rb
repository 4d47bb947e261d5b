# A stand-in for Homebrew, for tests/cli/t-install.sh on a machine without brew: it loads a formula
# the way brew does (the class body runs top to bottom), audits it with the rules below, and runs its
# install and test blocks against a tarball.
#
#   ruby brew-standin.rb FORMULA audit
#   ruby brew-standin.rb FORMULA install TARBALL PREFIX   checks TARBALL's SHA-256 against the
#                                                          formula, unpacks it and runs `install`
#   ruby brew-standin.rb FORMULA test PREFIX TESTDIR      runs `test do` against the installed PREFIX
#
# The audit rules are Homebrew's own, read from Homebrew/brew (commit aad366ff, 2026-08-22), not our
# beliefs: the component order of Library/Homebrew/ast_constants.rb; rubocops/desc.rb and
# shared/desc_helper.rb (description); homepage.rb and shared/homepage_helper.rb; checksum.rb;
# resource_auditor.rb (a version the url already names is redundant); uses_from_macos.rb (only
# formulae macOS provides); dependency_order.rb (build dependencies first, then by name);
# formula_auditor.rb audit_deps (`pkg-config` is an alias of `pkgconf`) and audit_text (test calls
# fully scoped); class.rb (a test block, and a real one); lines.rb (`assert_path_exists` rather than
# `assert_predicate ..., :exist?`; no template comments or commented-out dependencies); urls.rb (https). What it cannot check: anything `--online`
# fetches (homepage, url) and what brew's sandbox and superenv do to the build.
require "digest"
require "fileutils"
require "open3"
require "pathname"

module Standin
  # ast_constants.rb FORMULA_COMPONENT_PRECEDENCE_LIST, the part a formula like this one can use.
  ORDER = %i[include desc homepage url mirror version sha256 license revision version_scheme head stable
             livecheck bottle keg_only option deprecate! disable! depends_on uses_from_macos on_macos
             on_linux conflicts_with skip_clean fails_with resource patch install post_install caveats
             test].freeze
  # uses_from_macos.rb: PROVIDED_BY_MACOS_FORMULAE and ALLOWED_USES_FROM_MACOS_DEPS.
  MACOS_PROVIDES = %w[apr bc bc-gh berkeley-db bison bzip2 cups curl cyrus-sasl dyld-headers ed expat
                      file-formula flex gperf icu4c krb5 libarchive libedit libffi libiconv libpcap
                      libressl libxcrypt libxml2 libxslt lldb llvm lsof m4 ncompress ncurses net-snmp
                      netcat openldap pax pcsc-lite pod2man ruby sqlite ssh-copy-id swift tcl-tk unifdef
                      unzip whois zip zlib bash cpio expect git groff gzip jq less mandoc openssl perl
                      php python rsync vim xz zsh].freeze
  # Dependencies named by an alias of another formula (formula_auditor.rb audit_deps).
  ALIASES = { "pkg-config" => "pkgconf" }.freeze
  PROBLEMS = []
  CALLS = []
  STATE = {}
  def self.problem(msg) = PROBLEMS << msg
end

class Formula
  class << self
    attr_reader :spec

    def record(name, *args)
      @spec ||= Hash.new { |h, k| h[k] = [] }
      Standin::CALLS << name
      @spec[name] << args
    end

    %i[desc homepage url mirror version sha256 license revision depends_on uses_from_macos
       conflicts_with keg_only].each do |m|
      define_method(m) { |*args| record(m, *args) }
    end

    def test(&block)
      record(:test)
      @test_block = block
    end

    attr_reader :test_block

    def method_added(name)
      record(name) if %i[install post_install caveats].include?(name)
    end
  end

  def initialize(prefix, testpath = nil)
    @prefix = Pathname(prefix)
    @testpath = testpath && Pathname(testpath)
  end

  attr_reader :prefix, :testpath

  def version = self.class.spec[:url][0][0][%r{/lauka-(\d+(?:\.\d+)+)\.tar\.gz\z}, 1]
  def bin = prefix/"bin"
  def libexec = prefix/"libexec"
  def share = prefix/"share"
  def man1 = share/"man/man1"
  def bash_completion = prefix/"etc/bash_completion.d"
  def zsh_completion = share/"zsh/site-functions"
  def fish_completion = share/"fish/vendor_completions.d"

  def system(*args)
    Kernel.system(*args.map(&:to_s)) or raise "failed: #{args.join(" ")}"
  end

  def shell_output(cmd, status = 0)
    out, st = Open3.capture2e(cmd.to_s)
    raise "'#{cmd}' exited #{st.exitstatus}, wanted #{status}: #{out}" unless st.exitstatus == status

    out
  end

  def assert_match(want, got)
    ok = want.is_a?(Regexp) ? want.match?(got) : got.include?(want)
    raise "expected #{want.inspect} in: #{got}" unless ok
  end

  def assert_predicate(obj, pred) = (obj.public_send(pred) or raise "#{obj} is not #{pred}")
  def assert_path_exists(path) = (File.exist?(path) or raise "#{path} does not exist")
end

def audit(klass, source)
  s = klass.spec
  p = Standin.method(:problem)
  %i[desc homepage url sha256 license].each { |m| p.call("formula has no #{m}") if s[m].empty? }
  p.call("A `test do` test block should be added") unless klass.test_block

  # Component order.
  seen = Standin::CALLS.select { |c| Standin::ORDER.include?(c) }
  seen.each_cons(2) do |a, b|
    p.call("`#{b}` should be put before `#{a}`") if Standin::ORDER.index(a) > Standin::ORDER.index(b)
  end

  # Description.
  d = s[:desc][0]&.first.to_s
  p.call("desc is too long (#{d.length} > 80)") if d.length > 80
  p.call("desc shouldn't start with an article") if d.match?(/\A(the|an?)(?=\s)/i)
  p.call("desc should start with a capital letter") if d.match?(/\A[a-z]/)
  p.call("desc shouldn't start with the formula name") if d.match?(/\Alauka\b/i)
  p.call("desc shouldn't end with a full stop") if d.end_with?(".") && !d.end_with?("etc.")
  p.call("desc should use \"command-line\"") if d.match?(/command ?line/i)
  p.call("desc shouldn't have leading or trailing spaces") if d != d.strip

  # Homepage, url, checksum, version.
  h = s[:homepage][0]&.first.to_s
  p.call("homepage should start with https") unless h.start_with?("https://")
  u = s[:url][0]&.first.to_s
  p.call("url should be https: #{u}") unless u.start_with?("https://")
  sum = s[:sha256][0]&.first.to_s
  p.call("sha256 should be 64 lower-case hex digits: #{sum}") unless sum.match?(/\A[0-9a-f]{64}\z/)
  p.call("version is redundant with the version scanned from the url") if !s[:version].empty? &&
                                                                            u.include?("-#{s[:version][0][0]}.tar")

  # Dependencies.
  s[:uses_from_macos].each do |(dep, *)|
    name = dep.is_a?(Hash) ? dep.keys.first : dep
    p.call("uses_from_macos should only be used for macOS dependencies, not '#{name}'") \
      unless Standin::MACOS_PROVIDES.include?(name)
  end
  deps = s[:depends_on].map { |(d, *)| d.is_a?(Hash) ? [d.keys.first, d.values.first] : [d, nil] }
  deps.each { |(n, _)| p.call("dependency '#{n}' is an alias; use '#{Standin::ALIASES[n]}'") if Standin::ALIASES[n] }
  rank = ->((n, t)) { [t == :build ? 0 : t == :test ? 1 : 2, n.downcase] }
  p.call("depends_on out of order: #{deps.map(&:first)}") unless deps.each_cons(2).all? { |a, b| (rank.(a) <=> rank.(b)) <= 0 }
  (s[:depends_on].map(&:first) & s[:uses_from_macos].map(&:first)).each { |n| p.call("'#{n}' both depends_on and uses_from_macos") }

  # The test block: real, fully scoped, Homebrew's assertions.
  body = source[/^  test do\n(.*?)^  end\n/m, 1].to_s
  p.call("`test do` should contain a real test") if body.strip.empty? || body.strip == "true"
  p.call("Fully scope test calls, e.g. \#{bin}/lauka") if body.match?(/(system|shell_output|pipe_output)[(\s]+['"]lauka[\s'"]/)
  p.call("Use `assert_path_exists`") if body.match?(/assert_predicate .*:exist\?/)
  p.call("Use separate `make` calls") if source.match?(/make && make/)

  # Comments (lines.rb Comments): brew's template comments and commented-out dependencies.
  comments = source.lines.grep(/^\s*#/)
  templates = ["# PLEASE REMOVE", "# Documentation:", "# if this fails, try separate make/make install steps",
               "# The URL of the archive", "## Naming --", "# if your formula fails when building in parallel",
               "# Remove unrecognized options if warned by configure", '# system "cmake']
  p.call("Please remove default template comments") if comments.any? { |c| templates.any? { |t| c.include?(t) } }
  p.call("Commented-out dependency") if comments.any? { |c| c.match?(/#\s*depends_on\s+(.+)\s*$/) }
end

formula, mode, *args = ARGV
source = File.read(formula)
load formula
klass = Lauka

case mode
when "audit"
  audit(klass, source)
  Standin::PROBLEMS.each { |m| puts "#{formula}: #{m}" }
  exit(Standin::PROBLEMS.empty? ? 0 : 1)
when "install"
  tarball, prefix = args
  want = klass.spec[:sha256][0][0]
  got = Digest::SHA256.file(tarball).hexdigest
  abort "SHA256 mismatch\nExpected: #{want}\n  Actual: #{got}\n    File: #{tarball}" if want != got
  dir = File.join(File.dirname(File.expand_path(prefix)), "brew-build")
  FileUtils.mkdir_p(dir)
  Kernel.system("tar", "-xzf", tarball, "-C", dir, "--strip-components=1") or abort "cannot unpack #{tarball}"
  Dir.chdir(dir) { klass.new(prefix).install }
when "test"
  prefix, testpath = args
  FileUtils.mkdir_p(testpath)
  Dir.chdir(testpath) { klass.new(prefix, testpath).instance_eval(&klass.test_block) }
else
  abort "usage: brew-standin.rb FORMULA audit | install TARBALL PREFIX | test PREFIX TESTDIR"
end
